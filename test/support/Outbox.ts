import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface OutboxRow {
  readonly id: string
  readonly event: string
  readonly payload: Record<string, any>
  readonly componentIds: ReadonlyArray<string>
}

/** Outbox rows written after `afterId` (exclusive), oldest first. */
export const outboxSince = (afterId = "0") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<OutboxRow>`select id::text as id, event, payload, component_ids from outbox_events
                   where id > ${afterId}::bigint order by id`
  ).pipe(Effect.orDie)

/** The id of the newest outbox row ("0" when empty): take it before a change, then read what followed. */
export const outboxMark = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ id: string }>`select coalesce(max(id), 0)::text as id from outbox_events`
).pipe(
  Effect.map((rows) => rows[0]!.id),
  Effect.orDie
)
