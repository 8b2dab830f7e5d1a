import { Clock, Context, Effect, Layer, Option, Result, Schema } from "effect"
import type { SqlError, Statement } from "effect/sql"

import { ComponentId } from "../domain/Component.js"
import { BadRequest, NotFound } from "../domain/Errors.js"
import type { MonitorDefinition, MonitorId, MonitorRun } from "../domain/Monitor.js"
import { Monitor, MonitorMiss, MonitorResult, singleStatusCode, StoredMonitor } from "../domain/Monitor.js"
import type { PageRequest } from "../domain/Page.js"
import { reportingRegions } from "../domain/Quorum.js"
import { isForeignKeyViolation, isUniqueViolation, orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

class IdRow extends Schema.Class<IdRow>("IdRow")({ id: Schema.String }) {}

/** Where a monitor belongs and what quorum last decided of it. */
class PlacementRow extends Schema.Class<PlacementRow>("PlacementRow")({
  componentId: ComponentId,
  state: Schema.Literals(["unknown", "up", "degraded", "down"])
}) {}

/** A stored check as the database returns it. */
class MonitorResultRow extends Schema.Class<MonitorResultRow>("MonitorResultRow")({
  ...MonitorResult.fields,
  scheduledAt: Schema.DateTimeUtcFromDate,
  checkedAt: Schema.DateTimeUtcFromDate
}) {}

/** A stored miss as the database returns it. */
class MonitorMissRow extends Schema.Class<MonitorMissRow>("MonitorMissRow")({
  ...MonitorMiss.fields,
  scheduledAt: Schema.DateTimeUtcFromDate,
  recordedAt: Schema.DateTimeUtcFromDate
}) {}

/** Runs newest first; regions in name order within one time. */
const runsInOrder: Keyset = {
  list: "monitor-runs",
  keys: [
    { sql: "scheduled_at", type: "timestamptz", descending: true },
    { sql: "region", type: "text" },
    { sql: "job_id", type: "text" }
  ]
}

/** The monitor as answered: its stored row and the regions whose data counts at `now`. */
/**
 * The monitor with its reporting regions. `stored` is decoded already: validating it again costs
 * more than the scheduler's whole reload of thousands of monitors should.
 */
const withReporting = (stored: StoredMonitor, now: number, offline: ReadonlySet<string>) =>
  new Monitor({
    ...stored,
    reportingRegions: reportingRegions(
      stored,
      stored.regionStates.map((s) => ({ region: s.region, lastScheduledAt: s.lastScheduledAt.epochMilliseconds })),
      now,
      offline
    ).map((s) => s.region)
  }, { disableChecks: true })

/** A monitor's version for the scheduler (`versions`): its `updated_at` in microseconds, as text. */
const version = "floor(extract(epoch from updated_at) * 1000000)::bigint::text"

const json = (value: unknown) => value === null ? null : JSON.stringify(value)

/** A component deleted between the check and the write is a 404, not a 500. */
const componentGone = (definition: MonitorDefinition) => <A, R>(query: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.catchIf(
    query,
    isForeignKeyViolation,
    () => Effect.fail(NotFound.of("Component", definition.componentId))
  ).pipe(
    // The one unique column a write sets: a push token (an imported one) another monitor has.
    Effect.catchIf(
      (error): error is SqlError.SqlError => error._tag === "SqlError" && isUniqueViolation(error),
      () => BadRequest.fromIssues([{ path: ["pushToken"], message: "is taken by another push monitor" }])
    )
  )

/** Monitors in the order they were made. */
const monitorsInOrder: Keyset = {
  list: "monitors",
  keys: [{ sql: "created_at", type: "timestamptz" }, { sql: "id", type: "text" }]
}

export class MonitorsRepo extends Context.Service<MonitorsRepo>()("MonitorsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const monitors = rowsOf(StoredMonitor)
    const decodeMonitor = Schema.decodeUnknownResult(StoredMonitor)
    const runs = rowsOf(Schema.Union([MonitorResultRow, MonitorMissRow]))
    const ids = rowsOf(IdRow)
    const placements = rowsOf(PlacementRow)
    // A monitor with what each region last found.
    const withStates = (where: Statement.Fragment) =>
      sql`
      select m.*, coalesce((
        select json_agg(json_build_object(
          'region', s.region, 'ok', s.last_ok, 'consecutiveFailures', s.consecutive_failures,
          'lastScheduledAt', s.last_scheduled_at, 'lastCheckedAt', s.last_checked_at, 'lastDurationMs', s.last_duration_ms,
          'lastStatusCode', s.last_status_code, 'lastError', s.last_error) order by s.region)
        from monitor_region_state s where s.monitor_id = m.id), '[]'::json) as region_states
      from monitors m ${where}`
    const reading = <A, E, R>(read: (now: number) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(Clock.currentTimeMillis, read)
    /** `offline`: the regions whose probes are all silent (ProbeRegistry), left out of `reportingRegions`. */
    const findById = (id: string, offline: ReadonlySet<string>) =>
      reading((now) =>
        Effect.map(
          monitors.first(withStates(sql`where m.id = ${id}`)),
          Option.map((stored) => withReporting(stored, now, offline))
        )
      )
    /** The written monitor, read in the write's transaction: a delete meanwhile cannot come between. */
    const thenFind =
      (offline: ReadonlySet<string>) => <E, R>(write: Effect.Effect<Option.Option<{ id: string }>, E, R>) =>
        orUnavailable(sql.withTransaction(Effect.flatMap(
          write,
          Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: ({ id }) => findById(id, offline) })
        )))
    /** The stored form of a definition's fields beyond the columns of the same name. */
    const columns = (definition: MonitorDefinition) => ({
      expectedStatusCode: singleStatusCode(definition.expectedStatusCodes),
      regions: json(definition.regions),
      quorum: JSON.stringify(definition.quorum),
      headers: json(definition.headers),
      expectedStatusCodes: json(definition.expectedStatusCodes),
      dnsExpectedValues: json(definition.dnsExpectedValues),
      assertions: json(definition.assertions)
    })

    return {
      /** A page of monitors in the order they were made (`offline` as for findById). */
      findPage: (page: PageRequest, offline: ReadonlySet<string>) =>
        reading((now) =>
          Effect.map(
            readPage(
              sql,
              monitorsInOrder,
              page,
              (p) => sql`select *, ${p.pageKey} from (${withStates(sql``)}) m where ${p.after} ${p.orderBy} ${p.limit}`,
              monitors.all
            ),
            (found) => ({ ...found, items: found.items.map((stored) => withReporting(stored, now, offline)) })
          )
        ),
      /**
       * Every monitor not paused, in the scheduler's order, as its id and version: `updated_at`
       * in microseconds, which every write of anything but its state changes, through the API or
       * behind its back (a trigger, migration 0033), and ingest's state transitions do not. The
       * scheduler's reload every 5 s reads only these two columns of every monitor, and the rows
       * (findEach) of the monitors whose version changed.
       */
      versions: () =>
        orUnavailable(
          sql<{ id: string; version: string }>`
            select id, ${sql.literal(version)} as version from monitors where not paused order by created_at, id`
        ),
      /**
       * One value that changes whenever `versions` would answer differently: an MD5 of every id
       * and version, computed by the database. The reload reads it first and stops there when it
       * has not changed: reading 10,000 versions in JavaScript every 5 s cost about 16 ms of CPU,
       * a twentieth of the service's work at 10,000 monitors.
       */
      versionsDigest: () =>
        orUnavailable(
          sql<{ digest: string }>`
            select md5(coalesce(string_agg(id || ':' || ${sql.literal(version)}, ',' order by id), '')) as digest
            from monitors where not paused`
        ).pipe(Effect.map((rows) => rows[0]!.digest)),
      /**
       * The monitors of these ids (every monitor without them) that are not paused, in the
       * scheduler's order, each with its version (`versions`) and decoded only when asked: a
       * row that does not decode, written behind the API's back, comes back as its id and the
       * error, and hides no other. Header values are the real ones: only the API masks them.
       */
      findEach: (ids?: ReadonlyArray<string>) =>
        reading((now) =>
          orUnavailable(sql<Record<string, unknown>>`
            select *, ${sql.literal(version)} as row_version from monitors
            where not paused ${ids === undefined ? sql`` : sql`and id = any(${[...ids]}::text[])`}
            order by created_at, id`).pipe(
            Effect.map((rows) =>
              rows.map((row) => {
                const { rowVersion, ...monitor } = row
                return {
                  id: String(row.id),
                  version: String(rowVersion),
                  decode: () =>
                    Result.map(decodeMonitor({ ...monitor, regionStates: [] }), (stored) =>
                      withReporting(stored, now, new Set()))
                }
              })
            )
          )
        ),
      findById: (id: MonitorId, offline: ReadonlySet<string> = new Set()) => findById(id, offline),
      /**
       * `createdAt`: the service's clock, as resumes are dated: ingest admits runs from then
       * (ResultAdmission). Never before an earlier monitor's, so lists keep the order of creation
       * on a clock that stands still (a test's) too.
       */
      insert: (
        definition: MonitorDefinition,
        offline: ReadonlySet<string>,
        createdAt: number,
        /** push only: the SHA-256 of its token (src/domain/PushToken.ts). */
        pushTokenHash: string | null = null
      ) => {
        const c = columns(definition)
        return ids.first(
          sql`
            insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                                  failure_threshold, regions, quorum, degraded_above_ms, method, headers, body,
                                  expected_status_codes, body_contains, body_not_contains, assertions, dns_record_type,
                                  dns_expected_values, password, grpc_service, ping_count, incident_policy, incident_template_id, resolve_after_seconds,
                                  grace_seconds, push_token_hash, created_at)
            values (${definition.componentId}, ${definition.type}, ${definition.url}, ${definition.intervalSeconds},
                    ${definition.timeoutMs}, ${c.expectedStatusCode}, ${definition.failureThreshold},
                    ${c.regions}::jsonb, ${c.quorum}::jsonb, ${definition.degradedAboveMs}, ${definition.method},
                    ${c.headers}::jsonb, ${definition.body}, ${c.expectedStatusCodes}::jsonb, ${definition.bodyContains},
                    ${definition.bodyNotContains}, ${c.assertions}::jsonb, ${definition.dnsRecordType},
                    ${c.dnsExpectedValues}::jsonb,
                    ${definition.password}, ${definition.grpcService}, ${definition.pingCount},
                    ${definition.incidentPolicy}, ${definition.incidentTemplateId}, ${definition.resolveAfterSeconds},
                    ${definition.graceSeconds}, ${pushTokenHash},
                    greatest(${new Date(createdAt)}::timestamptz,
                             (select max(created_at) + interval '1 microsecond' from monitors)))
            returning id`.pipe(componentGone(definition))
        ).pipe(thenFind(offline), Effect.flatMap((inserted) => Effect.orDie(Effect.fromOption(inserted))))
      },
      /**
       * `pushTokenHash`: a push monitor's new token (a change of type to push); absent, a push
       * monitor keeps its token, and any other type has none.
       */
      replace: (
        id: MonitorId,
        definition: MonitorDefinition,
        offline: ReadonlySet<string> = new Set(),
        pushTokenHash: string | null = null
      ) => {
        const c = columns(definition)
        return ids.first(
          sql`
            update monitors set component_id = ${definition.componentId}, type = ${definition.type},
              url = ${definition.url}, interval_seconds = ${definition.intervalSeconds},
              timeout_ms = ${definition.timeoutMs}, expected_status_code = ${c.expectedStatusCode},
              failure_threshold = ${definition.failureThreshold}, regions = ${c.regions}::jsonb,
              quorum = ${c.quorum}::jsonb, degraded_above_ms = ${definition.degradedAboveMs},
              method = ${definition.method}, headers = ${c.headers}::jsonb, body = ${definition.body},
              expected_status_codes = ${c.expectedStatusCodes}::jsonb, body_contains = ${definition.bodyContains},
              body_not_contains = ${definition.bodyNotContains}, assertions = ${c.assertions}::jsonb,
              dns_record_type = ${definition.dnsRecordType},
              dns_expected_values = ${c.dnsExpectedValues}::jsonb,
              password = ${definition.password}, grpc_service = ${definition.grpcService},
              ping_count = ${definition.pingCount},
              incident_policy = ${definition.incidentPolicy}, incident_template_id = ${definition.incidentTemplateId},
              resolve_after_seconds = ${definition.resolveAfterSeconds},
              grace_seconds = ${definition.graceSeconds},
              push_token_hash = case when ${definition.type} = 'push' then coalesce(${pushTokenHash}, push_token_hash) end,
              updated_at = now()
            where id = ${id} returning id`.pipe(componentGone(definition))
        ).pipe(thenFind(offline))
      },
      /** A page of its runs of every region, results and misses together (a result replaces its miss). */
      runsPage: (id: MonitorId, page: PageRequest) =>
        readPage(
          sql,
          runsInOrder,
          page,
          (p) =>
            sql`
              select *, ${p.pageKey} from (
                select job_id, 'checked' as outcome, region, probe, scheduled_at, checked_at, ok, duration_ms, dns_ms,
                       connect_ms, tls_ms, first_byte_ms, status_code, error, ssl_days_left,
                       null::timestamptz as recorded_at, null::text as reason
                from check_results where monitor_id = ${id}
                union all
                select job_id, 'missed', region, probe, scheduled_at, null, null, null, null, null, null, null, null,
                       null, null, recorded_at, reason
                from missed_checks where monitor_id = ${id}
              ) runs
              where ${p.after} ${p.orderBy} ${p.limit}`,
          runs.all
        ).pipe(
          Effect.map((found) => ({
            ...found,
            items: found.items.map((row): MonitorRun =>
              row.outcome === "checked" ? new MonitorResult(row) : new MonitorMiss(row)
            )
          }))
        ),
      /** Its open automatic incident, if any, is handed over to the operators: nothing drives it any more. */
      remove: (id: MonitorId) =>
        orUnavailable(sql`
          with handed_over as (update incidents set automation = 'handed_over'
                               where monitor_id = ${id} and automation = 'active')
          delete from monitors where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /** A monitor's component and state as last committed, without a lock. */
      placement: (id: MonitorId) => placements.first(sql`select component_id, state from monitors where id = ${id}`),
      /** The same, locked for the rest of the transaction. */
      lockPlacement: (id: MonitorId) =>
        placements.first(sql`select component_id, state from monitors where id = ${id} for update`),

      /**
       * Locks components for a change of their monitors, in id order. "For no key update" waits
       * for status writers and deletions but not for ingest, which holds monitors while it
       * records their intervals (a foreign key check, "for key share", on the component).
       */
      lockComponents: (componentIds: ReadonlyArray<string>) =>
        orUnavailable(sql`
          select id from components where id = any(${[
          ...new Set(componentIds)
        ]}::text[]) order by id for no key update`)
          .pipe(Effect.asVoid),

      /**
       * Pauses or resumes a (locked) monitor. Pausing forgets what its regions found: its state is
       * `unknown` and a resumed monitor is judged only on checks after it.
       */
      setPaused: (id: MonitorId, paused: boolean, at: number) =>
        orUnavailable(
          paused
            ? sql`
              with forgotten as (delete from monitor_region_state where monitor_id = ${id})
              update monitors set paused = true, state = 'unknown', updated_at = now() where id = ${id}`
            : sql`update monitors set paused = false, resumed_at = ${new Date(at)}, updated_at = now()
                   where id = ${id} and paused`
        ).pipe(Effect.asVoid),

      /** Ends the monitor's open down interval, if any, at `at` (never before it started). */
      endDowntime: (id: MonitorId, at: number) =>
        orUnavailable(sql`
          update monitor_downtime set ended_at = greatest(started_at, ${new Date(at)})
          where monitor_id = ${id} and ended_at is null`).pipe(Effect.asVoid),

      /** Opens a down interval of the monitor on `componentId` from `at`, as ingest does when quorum finds it down. */
      openDowntime: (id: MonitorId, componentId: string, at: number) =>
        orUnavailable(sql`
          insert into monitor_downtime (monitor_id, component_id, started_at) values (${id}, ${componentId}, ${new Date(
          at
        )})
          on conflict (monitor_id) where ended_at is null do nothing`).pipe(Effect.asVoid)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
