import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { EventName } from "../domain/Event.js"

/**
 * The outbox: events are appended inside the transaction of the change they describe, so a
 * rolled-back change leaves no event and a committed one never loses its event.
 */
export class OutboxRepo extends Effect.Service<OutboxRepo>()("OutboxRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /** `data` is the event's payload data; `componentIds` the components it is about. */
      append: (event: EventName, data: object, componentIds: ReadonlyArray<string>) =>
        sql`insert into outbox_events (event, payload, component_ids)
            values (${event}, ${JSON.stringify(data)}::jsonb, ${[...componentIds]}::text[])`.pipe(Effect.asVoid)
    } as const
  })
}) {}
