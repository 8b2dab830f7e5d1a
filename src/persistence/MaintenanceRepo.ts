import { Context, DateTime, Effect, Layer, Option } from "effect"

import type { ComponentId, ComponentStatus, StatusSetBy } from "../domain/Component.js"
import type { MaintenanceId, MaintenanceStatus } from "../domain/Maintenance.js"
import { Maintenance } from "../domain/Maintenance.js"
import type { PageRequest } from "../domain/Page.js"
import type { Recurrence } from "../domain/Recurrence.js"
import { encodeRecurrence } from "../domain/Recurrence.js"
import { componentIdsColumn, replaceComponents } from "./ComponentLinks.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export interface WindowFields {
  readonly title: string
  readonly description: string
  readonly scheduledStart: DateTime.Utc
  readonly scheduledEnd: DateTime.Utc
}

/** Where a new window stands in a series; `seriesId` absent for the series' first occurrence. */
export interface SeriesPlace {
  readonly recurrence: Recurrence
  readonly seriesId?: MaintenanceId
  readonly occurrence: number
}

/** Windows by start, latest first. */
const windowsInOrder: Keyset = {
  list: "maintenance",
  keys: [{ sql: "scheduled_start", type: "timestamptz", descending: true }, { sql: "id", type: "text" }]
}

export class MaintenanceRepo extends Context.Service<MaintenanceRepo>()("MaintenanceRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const windows = rowsOf(Maintenance)

    const withComponents = sql.literal(`
      select m.*, ${componentIdsColumn("maintenance", "m")}
      from maintenance_windows m`)

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          windowsInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from (${withComponents}) m where ${p.after} ${p.orderBy} ${p.limit}`,
          windows.all
        ),

      findById: (id: MaintenanceId) => windows.first(sql`${withComponents} where m.id = ${id}`),

      /** The windows stored as public (see Visibility) that are not cancelled, latest start first. */
      findPublic: () =>
        windows.all(
          sql`${withComponents} where m.is_public and m.status <> 'cancelled' order by m.scheduled_start desc, m.id`
        ),

      /** Locks the window for the rest of the transaction. */
      lock: (id: MaintenanceId) => windows.first(sql`${withComponents} where m.id = ${id} for update of m`),

      /**
       * Ids of windows whose start or end has passed at `now` and that still await the transition,
       * starts first: a window ending on the tick another one covering the same component starts
       * then finds the component still covered, and leaves it in maintenance.
       */
      due: (now: Date) =>
        orUnavailable(sql<{ id: MaintenanceId }>`
          select id from maintenance_windows
          where (status = 'scheduled' and scheduled_start <= ${now})
             or (status = 'in_progress' and scheduled_end <= ${now})
          order by status = 'in_progress', case when status = 'scheduled' then scheduled_start else scheduled_end end, id`)
          .pipe(
            Effect.map((rows) => rows.map((row) => row.id))
          ),

      /**
       * Waits for the windows sharing a component with `id` that are due to start at `now` and
       * that another instance is starting right now (their lock): once it returns, their start
       * is committed and "still covered" sees them. Those nobody holds are not waited for.
       */
      awaitStarting: (id: MaintenanceId, now: Date) =>
        orUnavailable(sql`
          select w.id from maintenance_windows w
          where w.status = 'scheduled' and w.scheduled_start <= ${now} and w.scheduled_end > ${now} and w.id <> ${id}
            and exists (select 1 from maintenance_components mine join maintenance_components theirs
                          on theirs.component_id = mine.component_id
                        where mine.maintenance_id = ${id} and theirs.maintenance_id = w.id)
          order by w.id
          for key share of w`),

      /** Locks a due window unless another instance is transitioning it right now. */
      lockDue: (id: MaintenanceId) =>
        windows.first(sql`${withComponents} where m.id = ${id} for update of m skip locked`),

      /**
       * When the next window is to start or end, or to be reminded of, after `now` (what `due` and
       * `reminderDue` will find then); none when nothing is planned. One statement: the clock
       * sleeps until then.
       */
      nextDue: (now: Date) =>
        orUnavailable(sql<{ at: Date | null }>`
          select least(
            (select min(scheduled_start) from maintenance_windows where status = 'scheduled'),
            (select min(scheduled_end) from maintenance_windows where status = 'in_progress'),
            (select min(m.scheduled_start - o.maintenance_reminder_hours * interval '1 hour')
             from maintenance_windows m cross join organizations o
             where m.status = 'scheduled' and m.reminder_sent_at is null and o.maintenance_reminder_hours > 0
               and m.scheduled_start > ${now})) as at`).pipe(
          Effect.map((rows) => Option.fromNullishOr(rows[0]?.at ?? null))
        ),

      /**
       * Ids of the scheduled windows whose start comes within the organization's reminder horizon
       * after `now` (not at or before it: those start in this pass) and that await their reminder,
       * soonest first. None when the organization turned reminders off (0 hours).
       */
      reminderDue: (now: Date) =>
        orUnavailable(sql<{ id: MaintenanceId }>`
          select m.id from maintenance_windows m cross join organizations o
          where m.status = 'scheduled' and m.reminder_sent_at is null and o.maintenance_reminder_hours > 0
            and m.scheduled_start > ${now}
            and m.scheduled_start <= ${now}::timestamptz + o.maintenance_reminder_hours * interval '1 hour'
          order by m.scheduled_start, m.id`).pipe(Effect.map((rows) => rows.map((row) => row.id))),

      /**
       * Locks a window that still awaits its reminder at `now` (as `reminderDue` decides it,
       * checked again under the lock), unless another instance holds it right now.
       */
      lockReminderDue: (id: MaintenanceId, now: Date) =>
        windows.first(sql`${withComponents} cross join organizations o
          where m.id = ${id} and m.status = 'scheduled' and m.reminder_sent_at is null
            and o.maintenance_reminder_hours > 0 and m.scheduled_start > ${now}
            and m.scheduled_start <= ${now}::timestamptz + o.maintenance_reminder_hours * interval '1 hour'
          for update of m skip locked`),

      /** Records that the window's readers were reminded (or need no reminder) at `at`. */
      markReminded: (id: MaintenanceId, at: Date) =>
        orUnavailable(sql`update maintenance_windows set reminder_sent_at = ${at} where id = ${id}`),

      /**
       * A window scheduled at `now` already inside the reminder horizon gets no reminder: its
       * `maintenance.scheduled` has just told the readers when it starts.
       */
      skipReminderWithin: (id: MaintenanceId, now: Date) =>
        orUnavailable(sql`
          update maintenance_windows m set reminder_sent_at = ${now}
          from organizations o
          where m.id = ${id}
            and m.scheduled_start <= ${now}::timestamptz + o.maintenance_reminder_hours * interval '1 hour'`),

      /**
       * A window whose start moved is reminded of its new start: at once when that is already
       * inside the horizon, else when it gets there.
       */
      forgetReminder: (id: MaintenanceId) =>
        orUnavailable(sql`update maintenance_windows set reminder_sent_at = null where id = ${id}`),

      /**
       * Private until Visibility decides, in the same transaction. The first occurrence of a
       * series is its own series id. None when the series already has this occurrence.
       */
      insert: (fields: WindowFields, series: SeriesPlace | null = null) =>
        orUnavailable(sql<{ id: MaintenanceId }>`
          insert into maintenance_windows
            (id, title, description, scheduled_start, scheduled_end, is_public, recurrence, series_id, occurrence)
          select new.id, ${fields.title}, ${fields.description}, ${DateTime.toDateUtc(fields.scheduledStart)},
                 ${DateTime.toDateUtc(fields.scheduledEnd)}, false,
                 ${series === null ? null : encodeRecurrence(series.recurrence)}::jsonb,
                 case when ${series !== null}::boolean then coalesce(${series?.seriesId ?? null}::text, new.id) end,
                 ${series === null ? null : series.occurrence}::int
          from (select gen_random_uuid()::text as id) new
          on conflict (series_id, occurrence) where series_id is not null do nothing
          returning id`).pipe(Effect.map((rows) => Option.fromNullishOr(rows[0]?.id))),

      /** Locks the occurrences of `seriesId` after `occurrence` that have not finished, first first. */
      lockLaterInSeries: (seriesId: MaintenanceId, occurrence: number) =>
        windows.all(sql`${withComponents}
          where m.series_id = ${seriesId} and m.occurrence > ${occurrence}
            and m.status in ('scheduled', 'in_progress')
          order by m.occurrence
          for update of m`),

      update: (id: MaintenanceId, fields: WindowFields) =>
        orUnavailable(sql`
          update maintenance_windows
          set title = ${fields.title}, description = ${fields.description},
              scheduled_start = ${DateTime.toDateUtc(fields.scheduledStart)},
              scheduled_end = ${DateTime.toDateUtc(fields.scheduledEnd)}, updated_at = now()
          where id = ${id}`),

      setStatus: (id: MaintenanceId, status: MaintenanceStatus) =>
        orUnavailable(sql`update maintenance_windows set status = ${status}, updated_at = now() where id = ${id}`),

      /** Names the window's components; its visibility is Visibility's. */
      setComponents: (id: MaintenanceId, componentIds: ReadonlyArray<ComponentId>) =>
        replaceComponents(sql, "maintenance", id, componentIds),

      /**
       * The status to restore for a component a window puts into maintenance, with who had set
       * it: what another running window already remembered for it, or else the component's
       * current status (read under the caller's lock on the component).
       */
      rememberPrevious: (id: MaintenanceId, componentId: ComponentId) =>
        orUnavailable(sql`
          update maintenance_components
          set (previous_status, previous_status_set_by) = (
            select remembered.status, remembered.set_by from (
              select other.previous_status as status, other.previous_status_set_by as set_by, 0 as rank
              from maintenance_components other
              join maintenance_windows w on w.id = other.maintenance_id
              where other.component_id = ${componentId} and w.status = 'in_progress' and w.id <> ${id}
                and other.previous_status is not null
              union all
              select c.status, c.status_set_by, 1 from components c where c.id = ${componentId}
            ) remembered
            order by remembered.rank
            limit 1)
          where maintenance_id = ${id} and component_id = ${componentId}`),

      /**
       * The remembered status and who had set it (the operator for windows remembered before
       * that was kept), and whether another running window still covers the component.
       */
      restoreInfo: (id: MaintenanceId, componentId: ComponentId) =>
        orUnavailable(
          sql<{ previousStatus: ComponentStatus | null; previousSetBy: StatusSetBy; stillCovered: boolean }>`
          select mc.previous_status, coalesce(mc.previous_status_set_by, 'operator') as previous_set_by,
            exists (select 1 from maintenance_components other
                    join maintenance_windows w on w.id = other.maintenance_id
                    where other.component_id = mc.component_id and w.status = 'in_progress'
                      and w.id <> mc.maintenance_id) as still_covered
          from maintenance_components mc
          where mc.maintenance_id = ${id} and mc.component_id = ${componentId}`
        ).pipe(Effect.map((rows) => rows[0]))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
