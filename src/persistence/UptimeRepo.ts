import { Context, Effect, Layer, Schema } from "effect"

import { ComponentStatus } from "../domain/Component.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export type Granularity = "hour" | "day"

/**
 * The refresh's inputs are structs, not classes: at 10,000 components, a class instance a row
 * was a tenth of what the service allocated.
 */
const ComponentRow = Schema.Struct({
  id: Schema.String,
  /** Epoch ms (whole, as a Date has them), as every time below: a number parses at a fraction of a timestamp's cost. */
  createdAt: Schema.Number,
  monitorCount: Schema.Number
})

const StatusRow = Schema.Struct({
  componentId: Schema.String,
  status: ComponentStatus,
  startedAt: Schema.Number
})

const IntervalRow = Schema.Struct({
  componentId: Schema.String,
  startedAt: Schema.Number,
  endedAt: Schema.NullOr(Schema.Number)
})

/** A struct, not a class: decoding a thousand rows into class instances took about 3.5 ms, a third of the read. */
const TotalsRow = Schema.Struct({
  componentId: Schema.String,
  componentName: Schema.String,
  observedSeconds: Schema.Number,
  downtimeSeconds: Schema.Number
})

class BucketRow extends Schema.Class<BucketRow>("BucketRow")({
  componentId: Schema.String,
  bucketStart: Schema.Date,
  observedSeconds: Schema.Number,
  downtimeSeconds: Schema.Number
}) {}

class DirtyRow extends Schema.Class<DirtyRow>("DirtyRow")({
  lastId: Schema.NullOr(Schema.NumberFromString),
  since: Schema.NullOr(Schema.Date)
}) {}

class WatermarkRow extends Schema.Class<WatermarkRow>("WatermarkRow")({ latest: Schema.NullOr(Schema.Date) }) {}

export interface RollupRow {
  readonly componentId: string
  readonly bucketStart: Date
  readonly observedSeconds: number
  readonly downtimeSeconds: number
}

const week = 7 * 24 * 3_600_000

/** Rows per insert statement (about 100 bytes each of JSON). */
const insertChunk = 5000

export class UptimeRepo extends Context.Service<UptimeRepo>()("UptimeRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const plain = sql.withoutTransforms()
    const ms = (column: string) => plain.literal(`floor(extract(epoch from ${column}) * 1000)::float8`)
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
      /**
       * Everything the calculation needs for [from, to): each component's status at `from` and
       * changes since. A row a component and more, each minute: named as the schemas want in SQL,
       * so the client's name transform does not walk every row. Monitors are counted in one
       * grouped pass, not looked up per component (a scan per component asks the embedded
       * database's file for its size each time).
       */
      timelineInputs: (from: Date, to: Date) =>
        Effect.all({
          components: components.all(plain`
            select c.id, ${ms("c.created_at")} as "createdAt", coalesce(n.count, 0)::int as "monitorCount"
            from components c
              left join (select component_id, count(*) as count from monitors group by component_id) n
                on n.component_id = c.id`),
          statusChanges: statuses.all(plain`
            select component_id as "componentId", status, ${ms("started_at")} as "startedAt" from (
              select distinct on (component_id) component_id, status, started_at
              from component_status_history where started_at < ${from}
              order by component_id, started_at desc
            ) as before_window
            union all
            select component_id, status, ${ms("started_at")} from component_status_history
            where started_at >= ${from} and started_at < ${to}
            order by "componentId", "startedAt"`),
          downIntervals: intervals.all(plain`
            select component_id as "componentId", ${ms("started_at")} as "startedAt", ${ms("ended_at")} as "endedAt"
            from monitor_downtime
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
            // One JSON document a chunk: 10,000 components refreshed each minute were 20,000 rows
            // of five parameters, each date formatted and parsed on its own.
            orUnavailable(sql`
              insert into uptime_rollups (granularity, bucket_start, component_id, observed_seconds, downtime_seconds)
              select ${granularity}, to_timestamp(r.s / 1000.0), r.c, r.o, r.d
              from json_to_recordset(${
              JSON.stringify(chunk.map((row) => ({
                c: row.componentId,
                s: row.bucketStart.getTime(),
                o: row.observedSeconds,
                d: row.downtimeSeconds
              })))
            }::json) as r (c text, s bigint, o float8, d float8)
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
}) {
  static readonly layer = Layer.effect(this, this.make)
}
