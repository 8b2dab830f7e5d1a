/**
 * Response-time rollups (migration 0022): one row per monitor, granularity (hour or day), bucket
 * and region. Ingest appends results' measures to `response_time_pending`; a fold takes a chunk
 * of them, groups them and adds the groups to the stored rows in one statement (histograms are
 * added bucket by bucket). Reads return the rows of one period, which the service merges;
 * nothing here reads check_results.
 */
import { Context, Effect, Layer, Schema } from "effect"

import { bucketCount, perDoubling } from "../domain/ResponseTimeHistogram.js"
import type { Granularity, ResponseTimeRollup } from "../domain/ResponseTimes.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

class RollupRow extends Schema.Class<RollupRow>("RollupRow")({
  owner: Schema.String,
  region: Schema.String,
  bucketStart: Schema.Date,
  count: Schema.Number,
  sumMs: Schema.Number,
  minMs: Schema.Number,
  maxMs: Schema.Number,
  buckets: Schema.Array(Schema.Number),
  dnsSumMs: Schema.Number,
  dnsCount: Schema.Number,
  connectSumMs: Schema.Number,
  connectCount: Schema.Number,
  tlsSumMs: Schema.Number,
  tlsCount: Schema.Number,
  firstByteSumMs: Schema.Number,
  firstByteCount: Schema.Number
}) {}

/**
 * `Histogram.bucketOf` of a pending row's duration, in SQL: equal for every duration to a
 * hundredth of a millisecond (what probes send; tested at every bucket's bound), and at most one
 * bucket off within a few ulps of a bound, where `ln` and `Math.log2` may round apart.
 */
const bucketOfDuration = `case when t.duration_ms < 1 then 0 else least(floor(${perDoubling} * ln(t.duration_ms) / ` +
  `ln(2::float8))::integer + 1, ${bucketCount - 1}) end`

class FoldedRow extends Schema.Class<FoldedRow>("FoldedRow")({ taken: Schema.Number, folded: Schema.Number }) {}

class OwnerRow extends Schema.Class<OwnerRow>("OwnerRow")({ componentId: Schema.String }) {}
class CountRow extends Schema.Class<CountRow>("CountRow")({ count: Schema.Number }) {}

/** A stored bucket: `owner` is the monitor's id, or its component's when read per component. */
export interface StoredBucket extends Omit<ResponseTimeRollup, "monitorId" | "granularity"> {
  readonly owner: string
}

const toBucket = (row: RollupRow): StoredBucket => ({
  owner: row.owner,
  region: row.region,
  bucketStart: row.bucketStart.getTime(),
  histogram: { count: row.count, sumMs: row.sumMs, minMs: row.minMs, maxMs: row.maxMs, buckets: row.buckets },
  phases: {
    dns: { sumMs: row.dnsSumMs, count: row.dnsCount },
    connect: { sumMs: row.connectSumMs, count: row.connectCount },
    tls: { sumMs: row.tlsSumMs, count: row.tlsCount },
    firstByte: { sumMs: row.firstByteSumMs, count: row.firstByteCount }
  }
})

const columns = "r.region, r.bucket_start, r.count, r.sum_ms, r.min_ms, r.max_ms, r.buckets, r.dns_sum_ms, " +
  "r.dns_count, r.connect_sum_ms, r.connect_count, r.tls_sum_ms, r.tls_count, r.first_byte_sum_ms, r.first_byte_count"

export class ResponseTimesRepo extends Context.Service<ResponseTimesRepo>()("ResponseTimesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const rollups = rowsOf(RollupRow)
    const owners = rowsOf(OwnerRow)
    const counts = rowsOf(CountRow)
    const folds = rowsOf(FoldedRow)

    return {
      /**
       * Folds up to `limit` pending rows into the rollups in one statement, set-wise in the
       * database: nothing crosses the connection but the two counts. The rows no other
       * transaction holds are deleted; those of monitors it can share-lock (FOR KEY SHARE, the
       * lock a rollup insert's foreign key check takes) are grouped per monitor, granularity,
       * bucket and region and added to the stored rows, in key order (so two folds lock rollup
       * rows in the same order); those of monitors another transaction holds (an ingest batch, a
       * deletion under way) are put back for a later chunk or fold rather than waited for; those
       * of deleted monitors are dropped. A TID scan over the chosen ctids, so a chunk costs the
       * same however many rows wait. `rollUp` (domain/ResponseTimes.ts) is the same computation
       * in TypeScript, and the tests hold the two equal.
       */
      fold: (limit: number) =>
        folds.one(sql`
          with taken as (
            delete from response_time_pending where ctid = any(array(
              select ctid from response_time_pending limit ${limit} for update skip locked))
            returning monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms),
          locked as materialized (
            select id from monitors where id in (select monitor_id from taken) order by id for key share skip locked),
          put_back as (
            insert into response_time_pending (
              monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms)
            select t.* from taken t
            where not exists (select 1 from locked l where l.id = t.monitor_id)
              and exists (select 1 from monitors m where m.id = t.monitor_id)),
          measures as (
            select t.monitor_id, g.granularity, t.region, t.duration_ms, t.dns_ms, t.connect_ms, t.tls_ms,
                   t.first_byte_ms,
                   to_timestamp(floor(extract(epoch from t.scheduled_at) / g.seconds) * g.seconds) as bucket_start,
                   ${sql.literal(bucketOfDuration)} as bucket
            from taken t join locked l on l.id = t.monitor_id
            cross join (values ('hour', 3600), ('day', 86400)) as g (granularity, seconds)),
          histograms as (
            select monitor_id, granularity, bucket_start, region,
                   array_agg(bucket order by bucket) as indexes, array_agg(n order by bucket) as counts
            from (select monitor_id, granularity, bucket_start, region, bucket, count(*)::integer as n
                  from measures group by monitor_id, granularity, bucket_start, region, bucket) per_bucket
            group by monitor_id, granularity, bucket_start, region),
          totals as (
            select monitor_id, granularity, bucket_start, region, count(*)::integer as count,
                   sum(duration_ms) as sum_ms, min(duration_ms) as min_ms, max(duration_ms) as max_ms,
                   coalesce(sum(dns_ms), 0) as dns_sum_ms, count(dns_ms)::integer as dns_count,
                   coalesce(sum(connect_ms), 0) as connect_sum_ms, count(connect_ms)::integer as connect_count,
                   coalesce(sum(tls_ms), 0) as tls_sum_ms, count(tls_ms)::integer as tls_count,
                   coalesce(sum(first_byte_ms), 0) as first_byte_sum_ms, count(first_byte_ms)::integer as first_byte_count
            from measures group by monitor_id, granularity, bucket_start, region),
          added as (
            insert into response_time_rollups as t (
              monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms, buckets,
              dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms,
              first_byte_count)
            select s.monitor_id, s.granularity, s.bucket_start, s.region, s.count, s.sum_ms, s.min_ms, s.max_ms,
                   array(select coalesce(b.n, 0)
                         from generate_series(0, h.indexes[array_length(h.indexes, 1)]) as i
                         left join unnest(h.indexes, h.counts) as b (index, n) on b.index = i
                         order by i),
                   s.dns_sum_ms, s.dns_count, s.connect_sum_ms, s.connect_count, s.tls_sum_ms, s.tls_count,
                   s.first_byte_sum_ms, s.first_byte_count
            from totals s join histograms h using (monitor_id, granularity, bucket_start, region)
            order by s.monitor_id, s.granularity, s.bucket_start, s.region
            on conflict (monitor_id, granularity, bucket_start, region) do update set
              count = t.count + excluded.count,
              sum_ms = t.sum_ms + excluded.sum_ms,
              min_ms = least(t.min_ms, excluded.min_ms),
              max_ms = greatest(t.max_ms, excluded.max_ms),
              buckets = array(
                select coalesce(a, 0) + coalesce(e, 0)
                from unnest(t.buckets, excluded.buckets) with ordinality as u (a, e, i) order by i),
              dns_sum_ms = t.dns_sum_ms + excluded.dns_sum_ms, dns_count = t.dns_count + excluded.dns_count,
              connect_sum_ms = t.connect_sum_ms + excluded.connect_sum_ms,
              connect_count = t.connect_count + excluded.connect_count,
              tls_sum_ms = t.tls_sum_ms + excluded.tls_sum_ms, tls_count = t.tls_count + excluded.tls_count,
              first_byte_sum_ms = t.first_byte_sum_ms + excluded.first_byte_sum_ms,
              first_byte_count = t.first_byte_count + excluded.first_byte_count
            returning 1)
          select (select count(*)::integer from taken) as taken,
                 (select count(*)::integer from taken t join locked l on l.id = t.monitor_id) as folded`),

      /** One monitor's rows of a granularity from `from` on. */
      ofMonitor: (monitorId: string, granularity: Granularity, from: Date) =>
        Effect.map(
          rollups.all(sql`
            select r.monitor_id as owner, ${sql.literal(columns)} from response_time_rollups r
            where r.monitor_id = ${monitorId} and r.granularity = ${granularity} and r.bucket_start >= ${from}`),
          (rows) => rows.map(toBucket)
        ),

      /** The rows of these components' monitors, owned by their component, of a granularity from `from` on. */
      ofComponents: (componentIds: ReadonlyArray<string>, granularity: Granularity, from: Date) =>
        Effect.map(
          rollups.all(sql`
            select m.component_id as owner, ${sql.literal(columns)}
            from monitors m join response_time_rollups r on r.monitor_id = m.id
            where m.component_id = any(${[...componentIds]}::text[])
              and r.granularity = ${granularity} and r.bucket_start >= ${from}`),
          (rows) => rows.map(toBucket)
        ),

      /** Whether the monitor exists. */
      monitorExists: (monitorId: string) =>
        Effect.map(
          counts.one(sql`select count(*)::int as count from monitors where id = ${monitorId}`),
          (row) => row.count > 0
        ),

      /** Which of these components have monitors. */
      monitored: (componentIds: ReadonlyArray<string>) =>
        Effect.map(
          owners.all(sql`
            select distinct component_id from monitors where component_id = any(${[...componentIds]}::text[])`),
          (rows) => new Set(rows.map((row) => row.componentId))
        ),

      /** Deletes rows of a granularity whose bucket started before `before`, a bounded batch at a time; returns how many. */
      deleteBefore: (granularity: Granularity, before: Date, batch: number) =>
        counts.one(sql`
          with deleted as (
            delete from response_time_rollups where ctid in (
              select ctid from response_time_rollups
              where granularity = ${granularity} and bucket_start < ${before}
              limit ${batch} for update skip locked)
            returning 1)
          select count(*)::int as count from deleted`).pipe(Effect.map((row) => row.count))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
