import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { NotFound } from "../domain/Errors.js"
import { Monitor } from "../domain/Monitor.js"
import type { MonitorDefinition, MonitorId } from "../domain/Monitor.js"
import { orUnavailable, sqlState } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

/** A component deleted between the check and the write is a 404, not a 500. */
const componentGone = (definition: MonitorDefinition) => <A, R>(query: Effect.Effect<A, SqlError, R>) =>
  Effect.catchIf(
    query,
    (error) => sqlState(error) === "23503",
    () => Effect.fail(NotFound.of("Component", definition.componentId))
  )

export class MonitorsRepo extends Effect.Service<MonitorsRepo>()("MonitorsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const monitors = rowsOf(Monitor)
    const regions = (definition: MonitorDefinition) => definition.regions === null ? null : JSON.stringify(definition.regions)

    return {
      findAll: () => monitors.all(sql`select * from monitors order by created_at, id`),
      findById: (id: MonitorId) => monitors.first(sql`select * from monitors where id = ${id}`),
      insert: (definition: MonitorDefinition) =>
        monitors.one(
          sql`
            insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                                  failure_threshold, regions)
            values (${definition.componentId}, ${definition.type}, ${definition.url}, ${definition.intervalSeconds},
                    ${definition.timeoutMs}, ${definition.expectedStatusCode}, ${definition.failureThreshold},
                    ${regions(definition)}::jsonb)
            returning *`.pipe(componentGone(definition))
        ),
      replace: (id: MonitorId, definition: MonitorDefinition) =>
        monitors.first(
          sql`
            update monitors set component_id = ${definition.componentId}, type = ${definition.type},
              url = ${definition.url}, interval_seconds = ${definition.intervalSeconds},
              timeout_ms = ${definition.timeoutMs}, expected_status_code = ${definition.expectedStatusCode},
              failure_threshold = ${definition.failureThreshold}, regions = ${regions(definition)}::jsonb,
              updated_at = now()
            where id = ${id} returning *`.pipe(componentGone(definition))
        ),
      remove: (id: MonitorId) =>
        orUnavailable(sql`delete from monitors where id = ${id} returning id`).pipe(Effect.map((rows) => rows.length > 0))
    } as const
  })
}) {}
