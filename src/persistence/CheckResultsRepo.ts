/**
 * Check results and misses. Results and misses are written with one multi-row statement per
 * batch, deduplicated on (job id, region); a (job id, region) has a result or a miss, never both
 * (migration 0012). Runs no scheduler published are recorded as misses here too.
 */
import { Context, Effect, Layer, Schema } from "effect"

import { type CheckResult, type MissedCheck, type MissReason, schedulerProbe } from "../domain/CheckJob.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { builtTuples } from "./JsonTuples.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

class InsertedRow extends Schema.Class<InsertedRow>("InsertedRow")({ jobId: Schema.String, region: Schema.String }) {}

const PairsRow = Schema.Struct({ pairs: builtTuples<readonly [jobId: string, region: string]>() })

/**
 * Runs of one monitor that no scheduler published: its slots from `from` (inclusive) up to
 * `before` (exclusive, a slot), on the grid of `intervalMs` that `before` lies on.
 */
export interface UnpublishedRuns {
  readonly monitorId: string
  readonly from: number
  readonly before: number
  readonly intervalMs: number
}

class CountRow extends Schema.Class<CountRow>("CountRow")({ count: Schema.Number }) {}

/** How many runs a statement stored in one region. */
export class RegionCountRow extends Schema.Class<RegionCountRow>("RegionCountRow")({
  region: Schema.String,
  count: Schema.Number
}) {}

export class CheckResultsRepo extends Context.Service<CheckResultsRepo>()("CheckResultsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    // For the statements that answer one JSON value: the client's name transform would walk and
    // copy every nested array of it, on the ingest's hot path, to rename no key.
    const plain = sql.withoutTransforms()
    const inserted = rowsOf(InsertedRow)
    const pairs = rowsOf(PairsRow)
    const counts = rowsOf(CountRow)
    const regionCounts = rowsOf(RegionCountRow)

    return {
      /**
       * Stores the results not stored yet, deletes the misses they replace (a slow probe did run
       * the job after all), queues the successes' measures for the response-time rollups, and
       * returns the (job id, region) pairs it stored: one statement, the rows as one JSON value
       * (one JSON.stringify, where fifteen arrays were encoded element by element).
       */
      storeResults: (results: ReadonlyArray<CheckResult>) =>
        Effect.map(
          pairs.one(plain`
            with stored as (
              insert into check_results (job_id, region, monitor_id, probe, scheduled_at, checked_at, ok, duration_ms,
                                         dns_ms, connect_ms, tls_ms, first_byte_ms, status_code, error, ssl_days_left)
              select j, r, m, p, to_timestamp(s / 1000.0), to_timestamp(c / 1000.0), ok, d, dns, con, tls, fb, sc, e, ssl
              from json_to_recordset(${
            JSON.stringify(results.map((r) => ({
              j: r.jobId,
              r: r.region,
              m: r.monitorId,
              p: r.probe,
              s: r.scheduledAt,
              c: r.checkedAt,
              ok: r.ok,
              d: r.durationMs,
              dns: r.timings.dnsMs,
              con: r.timings.connectMs,
              tls: r.timings.tlsMs,
              fb: r.timings.firstByteMs,
              sc: r.statusCode,
              e: r.error,
              ssl: r.sslDaysLeft
            })))
          }::json) as (j text, r text, m text, p text, s bigint, c bigint, ok boolean, d float8, dns float8,
                           con float8, tls float8, fb float8, sc integer, e text, ssl integer)
              on conflict (job_id, region) do nothing
              returning job_id, region, monitor_id, scheduled_at, ok, duration_ms, dns_ms, connect_ms, tls_ms,
                        first_byte_ms),
            replaced as (delete from missed_checks m using stored s where m.job_id = s.job_id and m.region = s.region),
            pending as (
              insert into response_time_pending (
                monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms)
              select monitor_id, region, scheduled_at, duration_ms, dns_ms, connect_ms, tls_ms, first_byte_ms
              from stored where ok)
            select coalesce(json_agg(json_build_array(job_id, region)), '[]') as pairs from stored`),
          (row) => row.pairs.map(([jobId, region]) => ({ jobId, region }))
        ),

      /**
       * Stores the misses of (job id, region) pairs that have neither a result nor a miss stored;
       * answers the pairs it stored.
       */
      insertMisses: (misses: ReadonlyArray<MissedCheck>) =>
        misses.length === 0 ? Effect.succeed([]) : inserted.all(sql`
          insert into missed_checks (job_id, region, monitor_id, probe, scheduled_at, recorded_at, reason)
          select * from unnest(
            ${misses.map((m) => m.jobId)}::text[], ${misses.map((m) => m.region)}::text[],
            ${misses.map((m) => m.monitorId)}::text[], ${misses.map((m) => m.probe)}::text[],
            ${misses.map((m) => new Date(m.scheduledAt))}::timestamptz[],
            ${misses.map((m) => new Date(m.recordedAt))}::timestamptz[], ${misses.map((m) => m.reason)}::text[])
            as m (job_id, region, monitor_id, probe, scheduled_at, recorded_at, reason)
          where not exists (select 1 from check_results r where r.job_id = m.job_id and r.region = m.region)
          on conflict (job_id, region) do nothing
          returning job_id, region`),

      /**
       * Records as missed (`scheduler-away`, probe `(scheduler)`, at `now`) the runs no scheduler
       * published, as ingest stores a probe's misses: only for (job id, region) pairs with
       * neither a result nor a miss. For each monitor that exists and is not paused, in each region
       * it has run in since `since` (its `monitor_region_state` row, and a stored result between
       * `since` and `before`; one of its `regions` when it names them): every slot in [`from`,
       * `before`) after that region's last stored run before `before`, at or after the monitor's
       * creation and its last resume. The slots come from generate_series,
       * the job ids are jobIdOf's text. The monitors are locked first, in the order ingest locks
       * them, so a result stored meanwhile and a miss of one run take turns (the later sees the
       * other's row). Answers how many it stored in each region. The milliseconds go as bigints:
       * the client types a number by its value (int4 below 2^31, int8 above), and the elements of
       * an array parameter must all have one type.
       */
      insertUnpublishedMisses: (runs: ReadonlyArray<UnpublishedRuns>, now: number, since: number) =>
        runs.length === 0 ?
          Effect.succeed<ReadonlyArray<RegionCountRow>>([]) :
          orUnavailable(sql.withTransaction(Effect.andThen(
            sql`select 1 from monitors where id = any(${runs.map((r) => r.monitorId)}::text[]) and not paused
              order by id for no key update`,
            regionCounts.all(sql`
            with unpublished as (
              select g.monitor_id, s.region, m.created_at, m.resumed_at,
                     timestamptz 'epoch' + slot * interval '1 millisecond' as scheduled_at,
                     g.monitor_id || ':' || slot as job_id
              from unnest(${runs.map((r) => r.monitorId)}::text[], ${runs.map((r) => BigInt(r.from))}::int8[],
                          ${runs.map((r) => BigInt(r.before))}::int8[],
                          ${runs.map((r) => BigInt(r.intervalMs))}::int8[])
                     as g (monitor_id, from_ms, before_ms, interval_ms)
              join monitors m on m.id = g.monitor_id and not m.paused
              join monitor_region_state s on s.monitor_id = m.id and s.last_scheduled_at >= ${new Date(since)}
              -- The region's last stored run before the first slot published (not its state's last
              -- run: a result of that slot may be stored already); none since \`since\`: no region.
              cross join lateral (
                select floor(extract(epoch from r.scheduled_at) * 1000)::int8 as last_ms from check_results r
                where r.monitor_id = g.monitor_id and r.region = s.region and r.scheduled_at >= ${new Date(since)}
                  and r.scheduled_at < timestamptz 'epoch' + g.before_ms * interval '1 millisecond'
                order by r.scheduled_at desc limit 1) as last
              cross join lateral generate_series(
                g.before_ms - g.interval_ms, greatest(g.from_ms, last.last_ms + 1), -g.interval_ms) as slot
              where jsonb_typeof(m.regions) is distinct from 'array' or m.regions @> jsonb_build_array(s.region)),
            stored as (
              insert into missed_checks (job_id, region, monitor_id, probe, scheduled_at, recorded_at, reason)
              select u.job_id, u.region, u.monitor_id, ${schedulerProbe}, u.scheduled_at, ${new Date(now)},
                     ${"scheduler-away" satisfies MissReason}
              from unpublished u
              where u.scheduled_at >= u.created_at and u.scheduled_at >= coalesce(u.resumed_at, u.created_at)
                and not exists (select 1 from check_results r where r.job_id = u.job_id and r.region = u.region)
              on conflict (job_id, region) do nothing
              returning region)
            select region, count(*)::int as count from stored group by region`)
          ))),

      /** Deletes results (or misses) scheduled before `before`, a bounded batch at a time; returns how many. */
      deleteBefore: (table: "check_results" | "missed_checks", before: Date, batch: number) =>
        counts.one(sql`
          with deleted as (
            delete from ${sql(table)} where ctid in (
              select ctid from ${sql(table)} where scheduled_at < ${before} limit ${batch})
            returning 1)
          select count(*)::int as count from deleted`).pipe(Effect.map((row) => row.count))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
