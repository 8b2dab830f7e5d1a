import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

import { ComponentStatus } from "../domain/Component.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

export type Granularity = "hour" | "day"

class ComponentRow extends Schema.Class<ComponentRow>("ComponentRow")({
  id: Schema.String,
  createdAt: Schema.DateFromSelf,
  monitorCount: Schema.Number
}) {}

class StatusRow extends Schema.Class<StatusRow>("StatusRow")({
  componentId: Schema.String,
  status: ComponentStatus,
  startedAt: Schema.DateFromSelf
}) {}

class IntervalRow extends Schema.Class<IntervalRow>("IntervalRow")({
  componentId: Schema.String,
  startedAt: Schema.DateFromSelf,
  endedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** A struct, not a class: decoding a thousand rows into class instances took about 3.5 ms, a third of the read. */
const TotalsRow = Schema.Struct({
  componentId: Schema.String,
  componentName: Schema.String,
  observedSeconds: Schema.Number,
  downtimeSeconds: Schema.Number
})

class BucketRow extends Schema.Class<BucketRow>("BucketRow")({
  componentId: Schema.String,
  bucketStart: Schema.DateFromSelf,
  observedSeconds: Schema.Number,
  downtimeSeconds: Schema.Number
}) {}

class DirtyRow extends Schema.Class<DirtyRow>("DirtyRow")({
  lastId: Schema.NullOr(Schema.NumberFromString),
  since: Schema.NullOr(Schema.DateFromSelf)
}) {}

class WatermarkRow extends Schema.Class<WatermarkRow>("WatermarkRow")({ latest: Schema.NullOr(Schema.DateFromSelf) }) {}

export interface RollupRow {
  readonly componentId: string
  readonly bucketStart: Date
  readonly observedSeconds: number
  readonly downtimeSeconds: number
}

const week = 7 * 24 * 3_600_000

/** Rows per insert statement: 5 parameters each stays far below PostgreSQL's 65535. */
const insertChunk = 5000

export class UptimeRepo extends Effect.Service<UptimeRepo>()("UptimeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const components = rowsOf(ComponentRow)
    const statuses = rowsOf(StatusRow)
    const intervals = rowsOf(IntervalRow)
    const totals = rowsOf(TotalsRow)
    const watermarks = rowsOf(WatermarkRow)
    const dirty = rowsOf(DirtyRow)
    const buckets = rowsOf(BucketRow)

    const bucketsSince = (granularity: Granularity, from: Date) =>
      sql`select component_id, observed_seconds, downtime_seconds from uptime_rollups
          where granularity = ${granularity} and bucket_start >= ${from}`
    /**
     * The days since `from` as the weekly sums (uptime_rollup_weeks, kept from the days by a
     * trigger) of the weeks that start since, plus the days before the first of them: 90 days of
     * a component are about 16 rows instead of 90.
     */
    const daysSince = (from: Date) =>
      sql`select component_id, observed_seconds, downtime_seconds from uptime_rollup_weeks
          where week_start >= ${from}
          union all
          select component_id, observed_seconds, downtime_seconds from uptime_rollups
          where granularity = 'day' and bucket_start >= ${from} and bucket_start < ${new Date(from.getTime() + week)}
            and uptime_week_of(bucket_start) < ${from}`

    return {
      /** Everything the calculation needs for [from, to): each component's status at `from` and changes since. */
      timelineInputs: (from: Date, to: Date) =>
        Effect.all({
          components: components.all(sql`
            select c.id, c.created_at, (select count(*) from monitors m where m.component_id = c.id)::int as monitor_count
            from components c`),
          statusChanges: statuses.all(sql`
            select component_id, status, started_at from (
              select distinct on (component_id) component_id, status, started_at
              from component_status_history where started_at < ${from}
              order by component_id, started_at desc
            ) as before_window
            union all
            select component_id, status, started_at from component_status_history
            where started_at >= ${from} and started_at < ${to}
            order by component_id, started_at`),
          downIntervals: intervals.all(sql`
            select component_id, started_at, ended_at from monitor_downtime
            where started_at < ${to} and (ended_at is null or ended_at > ${from})`)
        }),

      /** The start of the latest rollup bucket of a granularity, if any. */
      latestBucket: (granularity: Granularity) =>
        Effect.map(
          watermarks.one(
            sql`select max(bucket_start) as latest from uptime_rollups where granularity = ${granularity}`
          ),
          (row) => row.latest
        ),

      /** The earliest moment marked for recomputation, and the mark to clear up to afterwards. */
      dirtySince: () => dirty.one(sql`select max(id)::text as last_id, min(since) as since from uptime_dirty`),
      clearDirty: (lastId: number) => orUnavailable(sql`delete from uptime_dirty where id <= ${lastId}`),

      upsert: (granularity: Granularity, rows: ReadonlyArray<RollupRow>) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(rows.length / insertChunk) }, (_, i) =>
            rows.slice(i * insertChunk, (i + 1) * insertChunk)),
          (chunk) =>
            orUnavailable(sql`
              insert into uptime_rollups ${sql.insert(chunk.map((row) => ({ ...row, granularity })))}
              on conflict (granularity, bucket_start, component_id) do update
              set observed_seconds = excluded.observed_seconds, downtime_seconds = excluded.downtime_seconds`),
          { discard: true }
        ),

      /**
       * Sums of the buckets since `from` for every public component (none yet: zero). The buckets
       * are summed before they meet the components: joining each bucket row cost half the read.
       */
      publicTotals: (granularity: Granularity, from: Date) =>
        totals.all(sql`
          select c.id as component_id, c.name as component_name,
                 coalesce(t.observed_seconds, 0)::float8 as observed_seconds,
                 coalesce(t.downtime_seconds, 0)::float8 as downtime_seconds
          from components c
          left join (
            select component_id, sum(observed_seconds) as observed_seconds, sum(downtime_seconds) as downtime_seconds
            from (${granularity === "day" ? daysSince(from) : bucketsSince(granularity, from)}) as buckets
            group by component_id
          ) as t on t.component_id = c.id
          where c.is_public
          order by c.display_order, c.name, c.id`),

      /** The buckets since `from` of every public component, one row per component and bucket. */
      publicBuckets: (granularity: Granularity, from: Date) =>
        buckets.all(sql`
          select r.component_id, r.bucket_start, r.observed_seconds::float8 as observed_seconds,
                 r.downtime_seconds::float8 as downtime_seconds
          from uptime_rollups r join components c on c.id = r.component_id
          where c.is_public and r.granularity = ${granularity} and r.bucket_start >= ${from}
          order by r.component_id, r.bucket_start`),

      prune: (granularity: Granularity, before: Date) =>
        orUnavailable(sql`delete from uptime_rollups where granularity = ${granularity} and bucket_start < ${before}`)
    } as const
  })
}) {}
