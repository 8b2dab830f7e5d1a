import { Context, Duration, Effect, Layer, Schema } from "effect"

import type { EventName } from "../domain/Event.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** An outbox row as the dispatcher claims it. */
export class OutboxRow extends Schema.Class<OutboxRow>("OutboxRow")({
  id: Schema.String,
  event: Schema.String,
  payload: Schema.Unknown,
  componentIds: Schema.Array(Schema.String),
  createdAt: Schema.Date
}) {}

/**
 * The outbox: events are appended inside the transaction of the change they describe, so a
 * rolled-back change leaves no event and a committed one never loses its event.
 */
export class OutboxRepo extends Context.Service<OutboxRepo>()("OutboxRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const rows = rowsOf(OutboxRow)
    return {
      /** `data` is the event's payload data; `componentIds` the components it is about. */
      append: (event: EventName, data: object, componentIds: ReadonlyArray<string>) =>
        sql`insert into outbox_events (event, payload, component_ids)
            values (${event}, ${JSON.stringify(data)}::jsonb, ${[...componentIds]}::text[])`.pipe(Effect.asVoid),

      /**
       * Claims up to `limit` undispatched events, oldest first, for `lease`: one statement, so no
       * transaction stays open. Concurrent dispatchers skip claimed rows; the rows of one that
       * died are claimed again when the lease runs out.
       */
      claimPending: (limit: number, lease: Duration.Duration) =>
        rows.all(sql`
          update outbox_events set claimed_at = now(), attempts = attempts + 1
          where id in (
            select id from outbox_events
            where delivered_at is null
              and (claimed_at is null or claimed_at < now() - ${Duration.toMillis(lease)} * interval '1 millisecond')
            order by id
            limit ${limit}
            for update skip locked)
          returning id::text as id, event, payload, component_ids, created_at`).pipe(
          Effect.map((claimed) => claimed.toSorted((a, b) => Number(BigInt(a.id) - BigInt(b.id))))
        ),

      /** Marks events as handed over to their deliveries. */
      markDispatched: (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.void
          : sql`update outbox_events set delivered_at = now()
                where id = any(${[...ids]}::bigint[])`.pipe(Effect.asVoid)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
