/**
 * Response-time rollups (migration 0022): one row per monitor, granularity (hour or day), bucket
 * and region. Ingest appends results' measures to `response_time_pending`; a fold takes a chunk
 * of them and adds their rows to the stored ones with one multi-row upsert (unnest of arrays);
 * histograms travel as array literals and are added bucket by bucket. Reads return the rows of
 * one period, which the service merges; nothing here reads check_results.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

import type { CheckResult } from "../domain/CheckJob.js"
import type { Granularity, ResponseTimeRollup } from "../domain/ResponseTimes.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

class RollupRow extends Schema.Class<RollupRow>("RollupRow")({
  owner: Schema.String,
  region: Schema.String,
  bucketStart: Schema.DateFromSelf,
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
 * A pending row as `take` returns it, in a JSON array (one value to parse for the whole chunk,
 * rather than a row of eight columns each): monitor, region, scheduled at (epoch ms), duration,
 * and the four phases.
 */
const PendingTuple = Schema.Tuple(
  Schema.String,
  Schema.String,
  Schema.Number,
  Schema.Number,
  Schema.NullOr(Schema.Number),
  Schema.NullOr(Schema.Number),
  Schema.NullOr(Schema.Number),
  Schema.NullOr(Schema.Number)
)

/** A successful result's measures waiting to be folded into the rollups. */
export type PendingMeasure = Pick<CheckResult, "monitorId" | "region" | "scheduledAt" | "durationMs" | "timings">

const toMeasure = (
  [monitorId, region, scheduledAt, durationMs, dnsMs, connectMs, tlsMs, firstByteMs]: typeof PendingTuple.Type
): PendingMeasure => ({
  monitorId,
  region,
  scheduledAt,
  durationMs,
  timings: { dnsMs, connectMs, tlsMs, firstByteMs }
})

class TakenRow extends Schema.Class<TakenRow>("TakenRow")({
  taken: Schema.Number,
  foldable: Schema.Array(PendingTuple)
}) {}

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

export class ResponseTimesRepo extends Effect.Service<ResponseTimesRepo>()("ResponseTimesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rollups = rowsOf(RollupRow)
    const owners = rowsOf(OwnerRow)
    const counts = rowsOf(CountRow)
    const takes = rowsOf(TakenRow)

    return {
      /**
       * Deletes up to `limit` pending rows no other transaction holds, in one statement: the rows
       * of monitors it can share-lock (FOR KEY SHARE, the lock a rollup insert's foreign key
       * check takes) are returned, the caller's transaction's to fold; those of monitors another
       * transaction holds (an ingest batch, a deletion under way) are put back for a later
       * chunk or fold rather than waited for; those of deleted monitors are dropped. Answers how
       * many rows it took, and the foldable ones as one JSON array. A TID scan over the chosen
       * ctids, so a chunk costs the same however many rows wait.
       */
      take: (limit: number) =>
        Effect.map(
          takes.one(sql`
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
                and exists (select 1 from monitors m where m.id = t.monitor_id))
            select (select count(*)::int from taken) as taken,
                   coalesce(json_agg(json_build_array(t.monitor_id, t.region,
                     (extract(epoch from t.scheduled_at) * 1000)::float8, t.duration_ms,
                     t.dns_ms, t.connect_ms, t.tls_ms, t.first_byte_ms)), '[]') as foldable
            from taken t join locked l on l.id = t.monitor_id`),
          ({ foldable, taken }) => ({ taken, foldable: foldable.map(toMeasure) })
        ),

      /**
       * Adds the rows to those stored, in one statement, in the order given (the caller's lock
       * order). The monitors must exist (the caller holds their locks); at most one row per key.
       * The rows travel as one JSON document: one JSON.stringify instead of seventeen arrays
       * encoded element by element.
       */
      add: (rows: ReadonlyArray<ResponseTimeRollup>) =>
        rows.length === 0 ? Effect.void : orUnavailable(sql`
          insert into response_time_rollups as t (
            monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms, buckets,
            dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms, first_byte_count)
          select b.m, b.g, to_timestamp(b.s / 1000.0), b.r, b.c, b.sum, b.min, b.max, b.h,
                 (b.p->0)::float8, (b.p->1)::integer, (b.p->2)::float8, (b.p->3)::integer,
                 (b.p->4)::float8, (b.p->5)::integer, (b.p->6)::float8, (b.p->7)::integer
          from rows from (json_to_recordset(${
          JSON.stringify(rows.map((r) => ({
            m: r.monitorId,
            g: r.granularity,
            s: r.bucketStart,
            r: r.region,
            c: r.histogram.count,
            sum: r.histogram.sumMs,
            min: r.histogram.minMs,
            max: r.histogram.maxMs,
            h: r.histogram.buckets,
            p: [
              r.phases.dns.sumMs,
              r.phases.dns.count,
              r.phases.connect.sumMs,
              r.phases.connect.count,
              r.phases.tls.sumMs,
              r.phases.tls.count,
              r.phases.firstByte.sumMs,
              r.phases.firstByte.count
            ]
          })))
        }::json) as (m text, g text, s bigint, r text, c integer, sum float8, min float8, max float8,
                        h integer[], p jsonb)) with ordinality as b (m, g, s, r, c, sum, min, max, h, p, i)
          order by b.i
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
            first_byte_count = t.first_byte_count + excluded.first_byte_count`).pipe(Effect.asVoid),

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
}) {}
