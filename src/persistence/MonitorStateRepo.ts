/**
 * What the monitors last found: each region's streak (`monitor_region_state`), each monitor's
 * state decided by quorum, and its down intervals (`monitor_downtime`). `lockForIngest` reads all
 * a batch of results decides on, in one statement.
 */
import { Context, Effect, Layer, Schema } from "effect"

import type { ComponentId, ComponentStatus } from "../domain/Component.js"
import type { MonitorState, QuorumMonitor, QuorumRule, RegionStatus } from "../domain/Quorum.js"
import type { StatusSourceRow } from "./ComponentStatusRepo.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { builtTuples } from "./JsonTuples.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

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
  readonly componentId: ComponentId
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

export class MonitorStateRepo extends Context.Service<MonitorStateRepo>()("MonitorStateRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    // lockForIngest answers one JSON value: the client's name transform would walk and copy every
    // nested array of it, on the ingest's hot path, to rename no key.
    const plain = sql.withoutTransforms()
    const locks = rowsOf(LocksRow)

    /**
     * The `monitor.down`, `monitor.degraded` and `monitor.up` events of a batch's transitions
     * (docs/notifications.md, "Monitor events"), one statement: each with the monitor's target,
     * its component, and what each of its regions last found, read after the batch saved them. A
     * first `up` (from `unknown`: a new or resumed monitor) is no recovery and has none.
     */
    const monitorEvents = (
      transitions: ReadonlyArray<{ monitor: LockedMonitor; state: "down" | "degraded" | "up"; since: number }>
    ) => {
      const events = transitions.filter((t) => !(t.state === "up" && t.monitor.state === "unknown"))
      const ids = events.map((t) => t.monitor.id)
      const states = events.map((t) => t.state)
      const previous = events.map((t) => t.monitor.state)
      const since = events.map((t) => new Date(t.since).toISOString())
      return events.length === 0 ? Effect.void : sql`
        insert into outbox_events (event, payload, component_ids)
        select 'monitor.' || t.state,
               -- The target as the audit log names it: a URL's credentials, query and fragment may hold a
               -- secret, and these events leave for other services (PagerDuty, chat, any receiver).
               jsonb_build_object('id', m.id, 'type', m.type,
                 'target', regexp_replace(regexp_replace(m.url, '^([a-z][a-z0-9+.-]*://)[^/@?#]*@', '\\1'), '[?#].*$', ''),
                 'componentId', c.id,
                 'componentName', c.name, 'state', t.state, 'previousState', t.previous, 'since', t.since,
                 'regions', coalesce((
                   select jsonb_agg(jsonb_build_object('region', s.region, 'ok', s.last_ok,
                       'consecutiveFailures', s.consecutive_failures,
                       'lastCheckedAt', to_char(s.last_checked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                       'lastDurationMs', s.last_duration_ms, 'lastStatusCode', s.last_status_code,
                       'lastError', s.last_error) order by s.region)
                   from monitor_region_state s
                   where s.monitor_id = m.id and (m.regions is null or m.regions ? s.region)), '[]'::jsonb)),
               array[m.component_id]
        from unnest(${ids}::text[], ${states}::text[], ${previous}::text[], ${since}::text[])
             with ordinality as t (id, state, previous, since, n)
        join monitors m on m.id = t.id
        join components c on c.id = m.component_id
        order by t.n`
    }

    return {
      /**
       * The monitors of these ids that still exist and are not paused (a paused monitor's late
       * results count as a deleted one's), locked for the rest of the transaction, with what
       * their regions last found, and their components' statuses with every monitor state of
       * each: what a batch of results decides on, in one statement. The rows come back as one
       * JSON value of tuples (written by the statement below, so read without a schema). The
       * region states and the components' monitors are grouped in one pass each rather than
       * looked up per monitor: on the embedded database each lookup's scan asks the file for
       * its size, a JavaScript fstat, and 125 monitors took 10 ms instead of 7 (docs/benchmarks.md).
       * The components are still found through the locked monitors, so that PostgreSQL reads
       * them by key rather than scanning every component to join.
       * `no key update`: ingest instances and monitor edits take turns on a monitor, while the
       * foreign-key checks of rows that name it (the response-time fold) do not wait.
       */
      lockForIngest: (ids: ReadonlyArray<string>) =>
        Effect.map(
          locks.one(plain`
            with locked as materialized (
              select id, component_id, state, interval_seconds, failure_threshold, regions, quorum, degraded_above_ms,
                     created_at, resumed_at
              from monitors where id = any(${[...ids]}::text[]) and not paused order by id for no key update),
            found as (
              select s.monitor_id, json_agg(json_build_array(s.region, (extract(epoch from s.last_scheduled_at) * 1000)::float8,
                       (extract(epoch from s.last_checked_at) * 1000)::float8, s.last_ok, s.consecutive_failures,
                       (extract(epoch from s.failing_since) * 1000)::float8, s.last_status_code, s.last_error,
                       s.last_duration_ms)) as regions
              from monitor_region_state s where s.monitor_id in (select id from locked) group by s.monitor_id),
            siblings as (
              select m.component_id, json_agg(json_build_array(m.id, m.state)) as monitors
              from monitors m where m.component_id in (select component_id from locked) group by m.component_id)
            select
              coalesce((select json_agg(json_build_array(l.id, l.component_id, l.state, l.interval_seconds,
                  l.failure_threshold, l.regions, l.quorum, l.degraded_above_ms, (extract(epoch from l.created_at) * 1000)::float8,
                  (extract(epoch from l.resumed_at) * 1000)::float8, coalesce(f.regions, '[]')) order by l.id)
                from locked l left join found f on f.monitor_id = l.id), '[]') as monitors,
              coalesce((select json_agg(json_build_array(c.id, c.name, c.status, c.status_set_by, b.monitors) order by c.id)
                from siblings b join components c on c.id = b.component_id
                where c.id in (select component_id from locked)), '[]') as components`),
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
              componentId: componentId as ComponentId,
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
       * theirs and their open interval, if any, closed (degraded is not downtime). Each writes its
       * `monitor.*` event to the outbox in the same transaction (`monitorEvents`).
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
          ], { discard: true }),
          monitorEvents([
            ...downs.map((d) => ({ monitor: d.monitor, state: "down" as const, since: d.since })),
            ...ups.map((u) => ({ monitor: u.monitor, state: u.state ?? "up", since: u.at }))
          ])
        ], { discard: true }))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
