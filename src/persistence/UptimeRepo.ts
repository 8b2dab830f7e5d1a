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

class TotalsRow extends Schema.Class<TotalsRow>("TotalsRow")({
  componentId: Schema.String,
  componentName: Schema.String,
  observedSeconds: Schema.Number,
  downtimeSeconds: Schema.Number
}) {}

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

      /** Sums of the buckets since `from` for every public component (none yet: zero). */
      publicTotals: (granularity: Granularity, from: Date) =>
        totals.all(sql`
          select c.id as component_id, c.name as component_name,
                 coalesce(sum(r.observed_seconds), 0)::float8 as observed_seconds,
                 coalesce(sum(r.downtime_seconds), 0)::float8 as downtime_seconds
          from components c
          left join uptime_rollups r
            on r.component_id = c.id and r.granularity = ${granularity} and r.bucket_start >= ${from}
          where c.is_public
          group by c.id, c.name, c.display_order
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
