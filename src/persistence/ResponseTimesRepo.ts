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

class PendingRow extends Schema.Class<PendingRow>("PendingRow")({
  monitorId: Schema.String,
  region: Schema.String,
  scheduledAt: Schema.DateFromSelf,
  durationMs: Schema.Number,
  dnsMs: Schema.NullOr(Schema.Number),
  connectMs: Schema.NullOr(Schema.Number),
  tlsMs: Schema.NullOr(Schema.Number),
  firstByteMs: Schema.NullOr(Schema.Number)
}) {}

/** A successful result's measures waiting to be folded into the rollups. */
export type PendingMeasure = Pick<CheckResult, "monitorId" | "region" | "scheduledAt" | "durationMs" | "timings">

const toMeasure = (row: PendingRow): PendingMeasure => ({
  monitorId: row.monitorId,
  region: row.region,
  scheduledAt: row.scheduledAt.getTime(),
  durationMs: row.durationMs,
  timings: { dnsMs: row.dnsMs, connectMs: row.connectMs, tlsMs: row.tlsMs, firstByteMs: row.firstByteMs }
})

class IdRow extends Schema.Class<IdRow>("IdRow")({ id: Schema.String }) {}
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
    const pending = rowsOf(PendingRow)
    const ids = rowsOf(IdRow)

    return {
      /** Appends measures to fold later: one narrow insert into a heap without indexes. */
      addPending: (measures: ReadonlyArray<PendingMeasure>) =>
        measures.length === 0 ? Effect.void : orUnavailable(sql`
          insert into response_time_pending (
            monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms)
          select * from unnest(
            ${measures.map((m) => m.monitorId)}::text[], ${measures.map((m) => m.region)}::text[],
            ${measures.map((m) => new Date(m.scheduledAt))}::timestamptz[], ${
          measures.map((m) => m.durationMs)
        }::float8[],
            ${measures.map((m) => m.timings.dnsMs)}::float8[], ${measures.map((m) => m.timings.connectMs)}::float8[],
            ${measures.map((m) => m.timings.tlsMs)}::float8[], ${
          measures.map((m) => m.timings.firstByteMs)
        }::float8[])`)
          .pipe(Effect.asVoid),

      /**
       * Deletes up to `limit` pending rows no other transaction holds and returns them: they are
       * the caller's transaction's to fold (or to put back). A TID scan over the chosen ctids, so
       * a chunk costs the same however many rows wait.
       */
      takePending: (limit: number) =>
        Effect.map(
          pending.all(sql`
            delete from response_time_pending where ctid = any(array(
              select ctid from response_time_pending limit ${limit} for update skip locked))
            returning monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms`),
          (rows) => rows.map(toMeasure)
        ),

      /**
       * Of these monitors, those now locked FOR KEY SHARE by the caller's transaction (the lock a
       * rollup insert's foreign key check takes), in id order; monitors deleted, or locked by a
       * transaction that conflicts (ingest, a deletion), are left out rather than waited for.
       */
      shareMonitors: (monitorIds: ReadonlyArray<string>) =>
        Effect.map(
          ids.all(sql`
            select id from monitors where id = any(${[...monitorIds]}::text[]) order by id for key share skip locked`),
          (rows) => new Set(rows.map((row) => row.id))
        ),

      /** Of these monitors, those that exist. */
      existingMonitors: (monitorIds: ReadonlyArray<string>) =>
        Effect.map(
          ids.all(sql`select id from monitors where id = any(${[...monitorIds]}::text[])`),
          (rows) => new Set(rows.map((row) => row.id))
        ),

      /**
       * Adds the rows to those stored, in one statement. The monitors must exist (the caller
       * holds their locks); at most one row per key.
       */
      add: (rows: ReadonlyArray<ResponseTimeRollup>) =>
        rows.length === 0 ? Effect.void : orUnavailable(sql`
          insert into response_time_rollups as t (
            monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms, buckets,
            dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms, first_byte_count)
          select monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms, buckets::integer[],
                 dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms, first_byte_count
          from unnest(
            ${rows.map((r) => r.monitorId)}::text[], ${rows.map((r) => r.granularity)}::text[],
            ${rows.map((r) => new Date(r.bucketStart))}::timestamptz[], ${rows.map((r) => r.region)}::text[],
            ${rows.map((r) => r.histogram.count)}::integer[], ${rows.map((r) => r.histogram.sumMs)}::float8[],
            ${rows.map((r) => r.histogram.minMs)}::float8[], ${rows.map((r) => r.histogram.maxMs)}::float8[],
            ${rows.map((r) => `{${r.histogram.buckets.join(",")}}`)}::text[],
            ${rows.map((r) => r.phases.dns.sumMs)}::float8[], ${rows.map((r) => r.phases.dns.count)}::integer[],
            ${rows.map((r) => r.phases.connect.sumMs)}::float8[], ${rows.map((r) => r.phases.connect.count)}::integer[],
            ${rows.map((r) => r.phases.tls.sumMs)}::float8[], ${rows.map((r) => r.phases.tls.count)}::integer[],
            ${rows.map((r) => r.phases.firstByte.sumMs)}::float8[], ${
          rows.map((r) => r.phases.firstByte.count)
        }::integer[]
          ) as b (monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms, buckets,
                  dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms, first_byte_count)
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
