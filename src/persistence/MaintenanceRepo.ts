import { SqlClient } from "@effect/sql"
import { DateTime, Effect } from "effect"
import type { ComponentId, ComponentStatus } from "../domain/Component.js"
import { Maintenance } from "../domain/Maintenance.js"
import type { MaintenanceId, MaintenanceStatus } from "../domain/Maintenance.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

export interface WindowFields {
  readonly title: string
  readonly description: string
  readonly scheduledStart: DateTime.Utc
  readonly scheduledEnd: DateTime.Utc
}

export class MaintenanceRepo extends Effect.Service<MaintenanceRepo>()("MaintenanceRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const windows = rowsOf(Maintenance)

    const withComponents = sql.literal(`
      select m.*,
        coalesce((select array_agg(mc.component_id order by mc.component_id)
                  from maintenance_components mc where mc.maintenance_id = m.id), '{}') as component_ids
      from maintenance_windows m`)

    return {
      findAll: () => windows.all(sql`${withComponents} order by m.scheduled_start desc, m.id`),

      findById: (id: MaintenanceId) => windows.first(sql`${withComponents} where m.id = ${id}`),

      /** Locks the window for the rest of the transaction. */
      lock: (id: MaintenanceId) => windows.first(sql`${withComponents} where m.id = ${id} for update of m`),

      /** Ids of windows whose start or end has passed at `now` and that still await the transition. */
      due: (now: Date) =>
        orUnavailable(sql<{ id: MaintenanceId }>`
          select id from maintenance_windows
          where (status = 'scheduled' and scheduled_start <= ${now})
             or (status = 'in_progress' and scheduled_end <= ${now})
          order by scheduled_start`).pipe(Effect.map((rows) => rows.map((row) => row.id))),

      /** Locks a due window unless another instance is transitioning it right now. */
      lockDue: (id: MaintenanceId) =>
        windows.first(sql`${withComponents} where m.id = ${id} for update of m skip locked`),

      insert: (fields: WindowFields) =>
        orUnavailable(sql<{ id: MaintenanceId }>`
          insert into maintenance_windows (title, description, scheduled_start, scheduled_end)
          values (${fields.title}, ${fields.description}, ${DateTime.toDateUtc(fields.scheduledStart)},
                  ${DateTime.toDateUtc(fields.scheduledEnd)})
          returning id`).pipe(Effect.map((rows) => rows[0]!.id)),

      update: (id: MaintenanceId, fields: WindowFields) =>
        orUnavailable(sql`
          update maintenance_windows
          set title = ${fields.title}, description = ${fields.description},
              scheduled_start = ${DateTime.toDateUtc(fields.scheduledStart)},
              scheduled_end = ${DateTime.toDateUtc(fields.scheduledEnd)}, updated_at = now()
          where id = ${id}`),

      setStatus: (id: MaintenanceId, status: MaintenanceStatus) =>
        orUnavailable(sql`update maintenance_windows set status = ${status}, updated_at = now() where id = ${id}`),

      setComponents: (id: MaintenanceId, componentIds: ReadonlyArray<ComponentId>) =>
        orUnavailable(Effect.zipRight(
          sql`delete from maintenance_components where maintenance_id = ${id}`,
          sql`insert into maintenance_components (maintenance_id, component_id) select ${id}, unnest(${[...componentIds]}::text[])`
        )),

      /**
       * The status to restore for a component a window puts into maintenance: the one another
       * running window already remembered for it, or else its current status.
       */
      rememberPrevious: (id: MaintenanceId, componentId: ComponentId, current: ComponentStatus) =>
        orUnavailable(sql`
          update maintenance_components
          set previous_status = coalesce(
            (select other.previous_status from maintenance_components other
             join maintenance_windows w on w.id = other.maintenance_id
             where other.component_id = ${componentId} and w.status = 'in_progress' and w.id <> ${id}
               and other.previous_status is not null
             limit 1),
            ${current})
          where maintenance_id = ${id} and component_id = ${componentId}`),

      /** The remembered status, and whether another running window still covers the component. */
      restoreInfo: (id: MaintenanceId, componentId: ComponentId) =>
        orUnavailable(sql<{ previousStatus: ComponentStatus | null; stillCovered: boolean }>`
          select mc.previous_status,
            exists (select 1 from maintenance_components other
                    join maintenance_windows w on w.id = other.maintenance_id
                    where other.component_id = mc.component_id and w.status = 'in_progress'
                      and w.id <> mc.maintenance_id) as still_covered
          from maintenance_components mc
          where mc.maintenance_id = ${id} and mc.component_id = ${componentId}`).pipe(Effect.map((rows) => rows[0]))
    } as const
  })
}) {}
