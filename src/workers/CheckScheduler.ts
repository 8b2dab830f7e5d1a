/**
 * The check scheduler: one active instance (a PostgreSQL advisory lock; the others stand by and
 * take over within seconds when it dies) keeps every monitor's next due time in memory and
 * publishes due jobs in batches. A monitor's runs fall on fixed slots (multiples of its interval
 * shifted by an offset from its id), so the job id `monitorId:scheduledAt` is the same whichever
 * instance schedules it, and ingest stores a run once even across a take-over.
 *
 * After a gap (no instance held the lock, or the active one stalled) only each monitor's latest
 * slot runs; the slots skipped are recorded as missed (`scheduler-away`), so every run due has a
 * result or a miss (docs/monitor-fleet.md, "Scheduler").
 *
 * Push monitors get no jobs: while it leads, the scheduler judges their deadlines instead
 * (PushDeadlines).
 */
import { Array as Arr, Clock, Duration, Effect, Layer, Result, Schedule, type Scope } from "effect"

import { type CheckType, jobIdOf, JobTemplate, type ScheduledRun } from "../domain/CheckJob.js"
import type { Monitor } from "../domain/Monitor.js"
import { latestSlot, slotOffset } from "../domain/Slots.js"
import { checkLabels, checksIngested, runsPublished, schedulerLag } from "../observability/Metrics.js"
import { holdAdvisoryLock } from "../persistence/AdvisoryLock.js"
import { CheckResultsRepo, type UnpublishedRuns } from "../persistence/CheckResultsRepo.js"
import { MonitorsRepo } from "../persistence/MonitorsRepo.js"
import { PushMonitorsRepo } from "../persistence/PushMonitorsRepo.js"
import { JobTransport } from "../queue/JobTransport.js"
import { noLabels } from "../runtime/MetricLabels.js"
import { startSpan, traceparentOf, TracingEnabled } from "../runtime/Telemetry.js"
import { ResultIngest } from "../services/monitoring/ResultIngest.js"
import { formatMonitorError } from "./formatMonitorError.js"
import { judgePushDeadlines } from "./PushDeadlines.js"

/** Key of the advisory lock only the active scheduler holds. */
const leaderLockKey = 7_311_402_001
/**
 * How often the leader wakes to publish what fell due. Each wake-up costs more than its own
 * work: it sets off a batch of checks, results and writes, and at 500 monitors on the embedded
 * default ten batches a second cost a quarter to a third more CPU than two (docs/benchmarks.md).
 * A run is published up to this long after its slot, a small part of any interval.
 */
export const tickEvery = Duration.millis(500)
const reloadEvery = Duration.seconds(5)
/**
 * How far back the runs no scheduler published are recorded as missed: a region whose last run
 * is older (a longer stop, a region gone) is left a gap. It bounds what one take-over writes to
 * an hour of runs per monitor and region, what the fleet stores in an hour anyway.
 */
export const unpublishedLookBack = Duration.hours(1)
/** Monitors per statement recording them: each locks its monitors against ingest while it runs. */
const unpublishedChunk = 500

/** The slot rule lives in the domain, where ingest's admission reads it too. */
export { slotAt } from "../domain/Slots.js"

interface Entry {
  /** The monitor's check, validated when it was loaded or changed. */
  readonly template: JobTemplate
  /** definitionKey of the monitor, and the version of the row it was read from (MonitorsRepo.versions). */
  readonly key: string
  version: string
  readonly intervalMs: number
  /** slotOffset, computed once: every tick walks every monitor. */
  readonly offset: number
  nextDue: number
}

/** The part of a monitor a job carries; edits to it reschedule the monitor. */
const definitionKey = (m: Monitor) =>
  JSON.stringify([
    m.type,
    m.url,
    m.intervalSeconds,
    m.timeoutMs,
    m.expectedStatusCode,
    m.regions,
    m.method,
    m.headers,
    m.body,
    m.expectedStatusCodes,
    m.bodyContains,
    m.bodyNotContains,
    m.assertions,
    m.dnsRecordType,
    m.dnsExpectedValues,
    m.password,
    m.grpcService,
    m.pingCount
  ])

/** The job template of a monitor; fails when the monitor is not a valid check definition. */
const templateOf = (monitor: Monitor) =>
  JobTemplate.make({
    monitorId: monitor.id,
    // Push monitors are left out before this (loadChanged); were one to come, its job would not validate.
    type: monitor.type as CheckType,
    url: monitor.url,
    timeoutMs: monitor.timeoutMs,
    // Only http checks read it; the job schema wants a code for every type.
    expectedStatusCode: monitor.expectedStatusCode ?? 200,
    intervalSeconds: monitor.intervalSeconds,
    regions: monitor.regions,
    // The fields of one type; null ones are left out of the job (the behaviour before them).
    ...(monitor.method != null ? { method: monitor.method } : {}),
    ...(monitor.headers != null ? { headers: monitor.headers } : {}),
    ...(monitor.body != null ? { body: monitor.body } : {}),
    ...(monitor.expectedStatusCodes != null ? { expectedStatusCodes: monitor.expectedStatusCodes } : {}),
    ...(monitor.bodyContains != null ? { bodyContains: monitor.bodyContains } : {}),
    ...(monitor.bodyNotContains != null ? { bodyNotContains: monitor.bodyNotContains } : {}),
    ...(monitor.assertions != null ? { assertions: monitor.assertions } : {}),
    ...(monitor.dnsRecordType != null ? { dnsRecordType: monitor.dnsRecordType } : {}),
    ...(monitor.dnsExpectedValues != null ? { dnsExpectedValues: monitor.dnsExpectedValues } : {}),
    ...(monitor.password != null ? { password: monitor.password } : {}),
    ...(monitor.grpcService != null ? { grpcService: monitor.grpcService } : {}),
    ...(monitor.pingCount != null ? { pingCount: monitor.pingCount } : {})
  })

/**
 * How a recording of the runs not published is retried: from 1 s, doubling up to 30 s, for as
 * long as the look-back (a database away for longer leaves a gap, as a longer stop does).
 */
const recordRetry = Schedule.min([Schedule.exponential("1 second"), Schedule.spaced("30 seconds")]).pipe(
  Schedule.while(({ elapsed }) => elapsed < Duration.toMillis(unpublishedLookBack))
)

/**
 * Publishes due jobs while this instance holds the lock. Never returns. It records the runs
 * not published in `recordings`, a scope that outlives the leadership.
 */
const scheduleWhileLeader = Effect.fnUntraced(function*(recordings: Scope.Scope) {
  const monitors = yield* MonitorsRepo
  const checks = yield* CheckResultsRepo
  const transport = yield* JobTransport
  const entries = new Map<string, Entry>()
  /** The version of each monitor that is not a valid check, so it is reported once per change. */
  const invalid = new Map<string, string>()
  /** The push monitors, published no job: while there are none, their deadlines cost no query. */
  const pushMonitors = new Set<string>()

  const loadChanged = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    // Every monitor's id and version, then the rows of those that changed: a reload of
    // thousands of unchanged monitors reads and decodes none of them.
    const seen = new Set<string>()
    const changed: Array<string> = []
    for (const { id, version } of yield* monitors.versions()) {
      seen.add(id)
      if (entries.get(id)?.version !== version && invalid.get(id) !== version) changed.push(id)
    }
    for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id)
    for (const id of invalid.keys()) if (!seen.has(id)) invalid.delete(id)
    for (const id of pushMonitors) if (!seen.has(id)) pushMonitors.delete(id)
    if (changed.length === 0) return
    // Paused or deleted since the first read: left out here, and dropped by the next reload.
    for (const { decode, id, version } of yield* monitors.findEach(changed)) {
      const existing = entries.get(id)
      const monitor = decode()
      // No job is published for a push monitor: the job it watches calls in (PushDeadlines judges it).
      if (Result.isSuccess(monitor) && monitor.success.type === "push") {
        entries.delete(id)
        invalid.set(id, version)
        pushMonitors.add(id)
        continue
      }
      pushMonitors.delete(id)
      const key = Result.isSuccess(monitor) ? definitionKey(monitor.success) : undefined
      // A change to what the check does not carry (its threshold, its quorum, its state) does not reschedule it.
      if (existing !== undefined && existing.key === key) {
        existing.version = version
        continue
      }
      const template = Result.flatMap(monitor, templateOf)
      if (Result.isFailure(template)) {
        // Probes would drop its jobs as undecodable: say why once per change instead.
        entries.delete(id)
        invalid.set(id, version)
        yield* Effect.logWarning("monitor is not a valid check; not scheduled").pipe(
          // Masked: a row written outside the API may hold a credential in a header value or the body.
          Effect.annotateLogs({ monitorId: id, error: formatMonitorError(template.failure) })
        )
        continue
      }
      invalid.delete(id)
      const intervalMs = template.success.check.intervalSeconds * 1000
      const offset = slotOffset(id, intervalMs)
      // A new or changed monitor is checked at its current slot, so it is measured at once.
      entries.set(id, {
        template: template.success,
        intervalMs,
        offset,
        key: key!,
        version,
        nextDue: latestSlot(offset, intervalMs, now)
      })
    }
  })
  /** The versions' digest `entries` were loaded at: while it is the same, a reload reads nothing more. */
  let loadedDigest: string | undefined
  const reload = Effect.gen(function*() {
    const digest = yield* monitors.versionsDigest()
    if (digest === loadedDigest) return
    yield* loadChanged
    loadedDigest = digest
  })

  // With tracing on, each run's span is the root of its check's trace; its job carries it (TracingEnabled).
  const tracing = yield* TracingEnabled
  const tracer = yield* Effect.tracer
  const clock = yield* Clock.Clock
  const publishTraced = (due: ReadonlyArray<ScheduledRun>) =>
    Effect.suspend(() => {
      const start = clock.currentTimeNanosUnsafe()
      const spans = due.map(({ scheduledAt, template: { check } }) =>
        startSpan(tracer, "CheckScheduler.dispatch", "producer", {
          "monitor.id": check.monitorId,
          "check.type": check.type,
          "check.job_id": jobIdOf(check.monitorId, scheduledAt),
          "check.scheduled_at": scheduledAt
        }, start)
      )
      return transport.publishRuns(due.map((run, i) => ({ ...run, traceparent: traceparentOf(spans[i]!) }))).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            const end = clock.currentTimeNanosUnsafe()
            for (const span of spans) span.end(end, exit)
          })
        )
      )
    })

  /**
   * Records the runs of `runs` as missed (CheckResultsRepo.insertUnpublishedMisses), a chunk of
   * monitors per statement, and logs how many. In a fiber of the scheduler's scope, not this
   * leadership's, retried until it succeeds: publishing does not wait for it, and neither the
   * end of leadership nor the database going away loses it. Only this leader can record these
   * runs: once the slots it published are stored, the next leader takes them as the regions'
   * last runs and looks no further back.
   */
  const recordUnpublished = (runs: ReadonlyArray<UnpublishedRuns>, now: number, what: string) =>
    Effect.gen(function*() {
      const since = now - Duration.toMillis(unpublishedLookBack)
      let recorded = 0
      for (const chunk of Arr.chunksOf(runs, unpublishedChunk)) {
        // Counted per chunk as it commits: a retry after a failed chunk stores (and counts) only the rest.
        for (const { count, region } of yield* checks.insertUnpublishedMisses(chunk, now, since)) {
          checksIngested.updateUnsafe(count, checkLabels(region, "missed"))
          recorded += count
        }
      }
      yield* Effect.logInfo(`${what}: ${recorded} runs no scheduler published recorded as missed`)
    }).pipe(
      // Any failure, defects too (a connection lost mid-statement is one): the statements are idempotent.
      Effect.sandbox,
      Effect.tapError((cause) =>
        Effect.logWarning(`${what}: recording the runs not published failed; retrying`, cause)
      ),
      Effect.retry(recordRetry),
      Effect.catch((cause) => Effect.logWarning(`${what}: recording the runs not published gave up`, cause)),
      Effect.forkIn(recordings)
    )

  const tick = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const due: Array<ScheduledRun> = []
    const skipped: Array<UnpublishedRuns> = []
    let oldest = now
    for (const entry of entries.values()) {
      if (entry.nextDue > now) continue
      // Behind by more than a slot (stalled longer than an interval): only the latest slot runs,
      // the ones before it are recorded as missed.
      const latest = latestSlot(entry.offset, entry.intervalMs, now)
      if (latest > entry.nextDue) {
        skipped.push({
          monitorId: entry.template.check.monitorId,
          from: Math.max(entry.nextDue, now - Duration.toMillis(unpublishedLookBack)),
          before: latest,
          intervalMs: entry.intervalMs
        })
      }
      const scheduledAt = Math.max(entry.nextDue, latest)
      due.push({ template: entry.template, scheduledAt })
      entry.nextDue = scheduledAt + entry.intervalMs
      if (scheduledAt < oldest) oldest = scheduledAt
    }
    // One call: the transport pipelines them in batches, without an effect per job or batch.
    yield* (tracing ? publishTraced(due) : transport.publishRuns(due))
    // Counted per tick, not per run: the oldest run's lag stands for the tick's.
    if (due.length > 0) {
      runsPublished.updateUnsafe(due.length, noLabels)
      schedulerLag.updateUnsafe(((yield* Clock.currentTimeMillis) - oldest) / 1000, noLabels)
    }
    if (skipped.length > 0) yield* recordUnpublished(skipped, now, "Scheduler fell behind")
  })

  yield* reload
  const takenOverAt = yield* Clock.currentTimeMillis
  yield* Effect.logInfo(`Scheduler active with ${entries.size} monitors`)
  // Each monitor's first slot to publish: the runs before it, since its regions' last runs, had no scheduler.
  const unpublished = [...entries.values()].map((entry): UnpublishedRuns => ({
    monitorId: entry.template.check.monitorId,
    from: takenOverAt - Duration.toMillis(unpublishedLookBack),
    before: entry.nextDue,
    intervalMs: entry.intervalMs
  }))
  // Before the first tick, not after it: a tick that fails part-way (Redis refusing one region's
  // stream) has still published some first slots, which the next leader, once their results are
  // stored, takes as the regions' last runs. The statements are idempotent: a take-over that
  // publishes nothing records too, and the next one adds only the slots since.
  yield* recordUnpublished(unpublished, takenOverAt, "Scheduler took over")
  // The first reload is the one above: the next comes after `reloadEvery`, not during the first tick.
  // A failed one (the database away a moment while the lock's connection lives, a pooled
  // connection terminated: failures or defects) is a warning, and the next runs on schedule.
  yield* reload.pipe(
    Effect.catchCause((cause) => Effect.logWarning("Reloading the monitors failed; retrying in 5 s", cause)),
    Effect.schedule(Schedule.spaced(reloadEvery)),
    Effect.forkScoped
  )
  yield* judgePushDeadlines(() => pushMonitors.size > 0).pipe(Effect.forkScoped)
  yield* tick
  return yield* tick.pipe(Effect.schedule(Schedule.spaced(tickEvery)), Effect.andThen(Effect.never))
})

/** Waits for the advisory lock, then schedules while it holds it. */
const lead = Effect.fnUntraced(function*(recordings: Scope.Scope) {
  const lost = yield* holdAdvisoryLock(leaderLockKey)
  return yield* Effect.raceFirst(Effect.scoped(scheduleWhileLeader(recordings)), lost)
}, Effect.scoped)

export const CheckScheduler = Layer.effectDiscard(
  Effect.flatMap(Effect.scope, lead).pipe(
    Effect.catchCause((cause) => Effect.logWarning("Scheduler stopped; standing by to take over again", cause)),
    Effect.repeat(Schedule.spaced("1 second")),
    Effect.annotateLogs("fiber", "check-scheduler"),
    Effect.forkScoped
  )
).pipe(Layer.provide([MonitorsRepo.layer, CheckResultsRepo.layer, PushMonitorsRepo.layer, ResultIngest.layer]))
