/**
 * Check results and misses, per-region monitor status and monitor states. Results and misses
 * are written with one multi-row statement per batch, deduplicated on (job id, region); a
 * (job id, region) has a result or a miss, never both (migration 0012).
 */
import { Context, Effect, Layer, Schema } from "effect"

import { type CheckResult, type MissedCheck, type MissReason, schedulerProbe } from "../domain/CheckJob.js"
import { ComponentId, ComponentStatus } from "../domain/Component.js"
import type { MonitorState, QuorumMonitor, QuorumRule, RegionStatus } from "../domain/Quorum.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

class InsertedRow extends Schema.Class<InsertedRow>("InsertedRow")({ jobId: Schema.String, region: Schema.String }) {}

/**
 * A JSON column of tuples that a statement of this file builds itself (json_agg of
 * json_build_array over typed columns): typed here, not decoded element by element, on the
 * path every check result takes.
 */
const builtTuples = <T extends ReadonlyArray<unknown>>() =>
  Schema.declare((u: unknown): u is ReadonlyArray<T> => Array.isArray(u))

const PairsRow = Schema.Struct({ pairs: builtTuples<readonly [jobId: string, region: string]>() })

type RegionTuple = readonly [
  region: string,
  lastScheduledAt: number,
  lastCheckedAt: number,
  lastOk: boolean,
  consecutiveFailures: number,
  failingSince: number | null,
  lastStatusCode: number | null,
  lastError: string | null,
  lastDurationMs: number
]

const LocksRow = Schema.Struct({
  monitors: builtTuples<
    readonly [
      id: string,
      componentId: string,
      state: MonitorState,
      intervalSeconds: number,
      failureThreshold: number,
      regions: ReadonlyArray<string> | null,
      quorum: QuorumRule,
      degradedAboveMs: number | null,
      createdAt: number,
      resumedAt: number | null,
      regionStatuses: ReadonlyArray<RegionTuple>
    ]
  >(),
  components: builtTuples<
    readonly [
      id: string,
      name: string,
      status: ComponentStatus,
      statusSetBy: "operator" | "monitors",
      monitors: ReadonlyArray<readonly [id: string, state: MonitorState]>
    ]
  >()
})

/** A monitor a batch of results is about, locked, with what each of its regions last found. */
export interface LockedMonitor extends QuorumMonitor {
  readonly id: string
  readonly componentId: string
  readonly state: MonitorState
  readonly regions: ReadonlyArray<string> | null
  readonly quorum: QuorumRule
  readonly degradedAboveMs: number | null
  /** Epoch milliseconds of its creation (ResultAdmission). */
  readonly createdAt: number
  /** Epoch milliseconds of the last resume after a pause, if any (ResultAdmission). */
  readonly resumedAt: number | null
  readonly regionStatuses: ReadonlyArray<RegionStatus>
}

/** A component's status, who set it, and the state of each of its monitors (id, state). */
export interface ComponentMonitors extends StatusSourceRow {
  readonly monitors: ReadonlyArray<readonly [id: string, state: MonitorState]>
}

const StoredState = Schema.Literals(["unknown", "up", "degraded", "down"])

export class StatusSourceRow extends Schema.Class<StatusSourceRow>("StatusSourceRow")({
  id: ComponentId,
  name: Schema.String,
  status: ComponentStatus,
  statusSetBy: Schema.Literals(["operator", "monitors"])
}) {}

class ComponentStatesRow extends Schema.Class<ComponentStatesRow>("ComponentStatesRow")({
  ...StatusSourceRow.fields,
  monitorStates: Schema.Array(StoredState)
}) {}

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

class StateRow extends Schema.Class<StateRow>("StateRow")({ state: StoredState }) {}

export class ChecksRepo extends Context.Service<ChecksRepo>()("ChecksRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    // For the statements that answer one JSON value: the client's name transform would walk and
    // copy every nested array of it, on the ingest's hot path, to rename no key.
    const plain = sql.withoutTransforms()
    const inserted = rowsOf(InsertedRow)
    const pairs = rowsOf(PairsRow)
    const locks = rowsOf(LocksRow)
    const states = rowsOf(StateRow)
    const statusSources = rowsOf(StatusSourceRow)
    const counts = rowsOf(CountRow)
    const regionCounts = rowsOf(RegionCountRow)
    const componentStates = rowsOf(ComponentStatesRow)

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

      /**
       * The monitors of these ids that still exist and are not paused (a paused monitor's late
       * results count as a deleted one's), locked for the rest of the transaction, with what
       * their regions last found, and their components' statuses with every monitor state of
       * each: what a batch of results decides on, in one statement. The rows come back as one
       * JSON value of tuples (written by the statement below, so read without a schema).
       * `no key update`: ingest instances and monitor edits take turns on a monitor, while the
       * foreign-key checks of rows that name it (the response-time fold) do not wait.
       */
      lockForIngest: (ids: ReadonlyArray<string>) =>
        Effect.map(
          locks.one(plain`
            with locked as materialized (
              select id, component_id, state, interval_seconds, failure_threshold, regions, quorum, degraded_above_ms,
                     created_at, resumed_at
              from monitors where id = any(${[...ids]}::text[]) and not paused order by id for no key update)
            select
              coalesce((select json_agg(json_build_array(l.id, l.component_id, l.state, l.interval_seconds,
                  l.failure_threshold, l.regions, l.quorum, l.degraded_above_ms, (extract(epoch from l.created_at) * 1000)::float8,
                  (extract(epoch from l.resumed_at) * 1000)::float8,
                  coalesce((select json_agg(json_build_array(s.region, (extract(epoch from s.last_scheduled_at) * 1000)::float8,
                      (extract(epoch from s.last_checked_at) * 1000)::float8, s.last_ok, s.consecutive_failures,
                      (extract(epoch from s.failing_since) * 1000)::float8, s.last_status_code, s.last_error, s.last_duration_ms))
                    from monitor_region_state s where s.monitor_id = l.id), '[]')))
                from locked l), '[]') as monitors,
              coalesce((select json_agg(json_build_array(c.id, c.name, c.status, c.status_set_by,
                  (select coalesce(json_agg(json_build_array(m.id, m.state)), '[]')
                   from monitors m where m.component_id = c.id)))
                from components c where c.id in (select component_id from locked)), '[]') as components`),
          ({ components, monitors }) => ({
            monitors: monitors.map(([
              id,
              componentId,
              state,
              intervalSeconds,
              failureThreshold,
              regions,
              quorum,
              degradedAboveMs,
              createdAt,
              resumedAt,
              regionStates
            ]): LockedMonitor => ({
              id,
              componentId,
              state,
              intervalSeconds,
              failureThreshold,
              regions,
              quorum,
              degradedAboveMs,
              createdAt,
              resumedAt,
              regionStatuses: regionStates.map((
                [
                  region,
                  lastScheduledAt,
                  lastCheckedAt,
                  lastOk,
                  consecutiveFailures,
                  failingSince,
                  lastStatusCode,
                  lastError,
                  lastDurationMs
                ]
              ) => ({
                region,
                lastScheduledAt,
                lastCheckedAt,
                lastOk,
                consecutiveFailures,
                failingSince,
                lastStatusCode,
                lastError,
                lastDurationMs
              }))
            })),
            components: components.map(([id, name, status, statusSetBy, monitors]): ComponentMonitors => ({
              id: id as ComponentId,
              name,
              status,
              statusSetBy,
              monitors
            }))
          })
        ),

      /** Saves what the regions last found, one statement for the batch, the rows as one JSON value. */
      saveRegionStatuses: (statuses: ReadonlyArray<{ monitorId: string; status: RegionStatus }>) =>
        statuses.length === 0 ? Effect.void : orUnavailable(sql`
          insert into monitor_region_state (monitor_id, region, last_scheduled_at, last_checked_at, last_ok,
                                            consecutive_failures, failing_since, last_status_code, last_error, last_duration_ms)
          select m, r, to_timestamp(s / 1000.0), to_timestamp(c / 1000.0), ok, f, to_timestamp(fs / 1000.0), sc, e, d
          from json_to_recordset(${
          JSON.stringify(statuses.map(({ monitorId, status }) => ({
            m: monitorId,
            r: status.region,
            s: status.lastScheduledAt,
            c: status.lastCheckedAt,
            ok: status.lastOk,
            f: status.consecutiveFailures,
            fs: status.failingSince,
            sc: status.lastStatusCode,
            e: status.lastError,
            d: status.lastDurationMs
          })))
        }::json) as (m text, r text, s bigint, c bigint, ok boolean, f integer, fs bigint, sc integer, e text, d float8)
          on conflict (monitor_id, region) do update set
            last_scheduled_at = excluded.last_scheduled_at, last_checked_at = excluded.last_checked_at,
            last_ok = excluded.last_ok, consecutive_failures = excluded.consecutive_failures,
            failing_since = excluded.failing_since, last_status_code = excluded.last_status_code,
            last_error = excluded.last_error, last_duration_ms = excluded.last_duration_ms`).pipe(Effect.asVoid),

      /**
       * Applies a batch's transitions with a few statements whatever its size: the monitors found
       * down get their state and an open downtime interval, the ones found up or degraded get
       * theirs and their open interval, if any, closed (degraded is not downtime).
       */
      applyTransitions: (
        downs: ReadonlyArray<{ monitor: LockedMonitor; since: number }>,
        ups: ReadonlyArray<{ monitor: LockedMonitor; at: number; state?: "up" | "degraded" }>,
        now: number
      ) =>
        orUnavailable(Effect.all([
          downs.length === 0 ? Effect.void : Effect.all([
            sql`update monitors set state = 'down', state_changed_at = ${new Date(now)}
                where id = any(${downs.map((d) => d.monitor.id)}::text[])`,
            sql`insert into monitor_downtime (monitor_id, component_id, started_at)
                select * from unnest(${downs.map((d) => d.monitor.id)}::text[], ${
              downs.map((d) => d.monitor.componentId)
            }::text[],
                                     ${downs.map((d) => new Date(d.since))}::timestamptz[])
                on conflict (monitor_id) where ended_at is null do nothing`
          ], { discard: true }),
          ups.length === 0 ? Effect.void : Effect.all([
            sql`update monitors m set state = u.state, state_changed_at = ${new Date(now)}
                from unnest(${ups.map((u) => u.monitor.id)}::text[], ${
              ups.map((u) => u.state ?? "up")
            }::text[]) as u (id, state)
                where m.id = u.id`,
            sql`update monitor_downtime d set ended_at = greatest(d.started_at, u.at)
                from unnest(${ups.map((u) => u.monitor.id)}::text[], ${
              ups.map((u) => new Date(u.at))
            }::timestamptz[]) as u (monitor_id, at)
                where d.monitor_id = u.monitor_id and d.ended_at is null`
          ], { discard: true })
        ], { discard: true })),

      /** The states of a component's monitors. */
      componentMonitorStates: (componentId: string) =>
        Effect.map(
          states.all(sql`select state from monitors where component_id = ${componentId}`),
          (rows): ReadonlyArray<MonitorState> => rows.map((row) => row.state)
        ),

      /** A component's status and who set it, locked for the rest of the transaction. */
      lockComponentStatus: (componentId: string) =>
        statusSources.first(
          sql`select id, name, status, status_set_by from components where id = ${componentId} for update`
        ),

      /** Each component's status, who set it and its monitors' states, in one query for a batch. */
      componentStatuses: (componentIds: ReadonlyArray<string>) =>
        componentStates.all(sql`
          select c.id, c.name, c.status, c.status_set_by,
                 coalesce(array_agg(m.state) filter (where m.id is not null), '{}') as monitor_states
          from components c left join monitors m on m.component_id = c.id
          where c.id = any(${[...componentIds]}::text[])
          group by c.id`),

      /** Sets a status as the monitors' doing (see migration 0010: the actor goes into status_set_by). */
      setStatusByMonitors: (componentId: string, status: ComponentStatus) =>
        orUnavailable(Effect.all([
          sql`select set_config('status_page.actor', 'monitors', true)`,
          sql`update components set status = ${status}, updated_at = now() where id = ${componentId}`
        ], { discard: true })),

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
