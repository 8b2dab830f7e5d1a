/**
 * The ingest role: reads results and misses in batches from the `ingest` consumer group of
 * every region's results stream, stores them (ResultIngest: reports of runs that were not
 * scheduled are refused there) and acknowledges them only after they are stored; takes over
 * what a dead ingest instance left pending; hands the probes' heartbeats to the ProbeRegistry
 * from a fiber of their own, so they never hold up results; deletes raw results and misses
 * past RESULTS_RETENTION_DAYS.
 *
 * A batch PostgreSQL refuses for another reason than being away (a report it cannot store) is
 * stored again in halves, down to single reports: the one that still fails is acknowledged and
 * logged (its job id and region), so it cannot hold up the others, nor come back forever.
 */
import { hostname } from "node:os"

import { Cause, Clock, Duration, Effect, Layer, Option, Queue, Result, Schedule } from "effect"
import type { SqlError } from "effect/sql"

import type { ProbeReport } from "../domain/CheckJob.js"
import { CheckResultsRepo } from "../persistence/CheckResultsRepo.js"
import { sqlState } from "../persistence/DatabaseErrors.js"
import { EmbeddedDatabase } from "../persistence/EmbeddedBackup.js"
import type { Delivery, QueueError } from "../queue/JobTransport.js"
import { JobTransport } from "../queue/JobTransport.js"
import { AppConfig, QueueConfig } from "../runtime/Config.js"
import { ProbeRegistry } from "../services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../services/monitoring/ResultIngest.js"

const batchSize = 500

/**
 * After a batch smaller than `batchSize`, the next read waits this long since the last one began,
 * so the results arriving meanwhile are stored in one transaction. A transaction costs five
 * statements whatever its size: at 25 results a second, one per read cost most of the service's
 * CPU per check, and going from 500 ms to 1 s saved a seventh of it on the embedded database
 * (docs/benchmarks.md, "Cost per check"). A result waits at most this long more, well within a
 * check's interval; at high rates a batch is full and nothing waits. Real time, not the Clock: a
 * test's TestClock must not hold ingest up.
 */
export const batchWindow = Duration.seconds(1)
/**
 * On the embedded database, whose statements run on the service's own thread, the window is
 * 5 s: a transaction's fixed cost (its five statements) then comes once for 125 results at 500
 * monitors rather than for 50 (2 s, docs/benchmarks.md, "Third round"): about 1.8 ms of CPU a
 * second less ("The fifth morning"). A result waits at most 5 s to be stored: a monitor is
 * checked every 10 s at the most, and goes down only after failures in a row.
 */
export const embeddedBatchWindow = Duration.seconds(5)
type IngestError = Effect.Error<ReturnType<ResultIngest["Service"]["ingest"]>>
const retentionBatch = 10_000

/** The kind of the defect that failed a batch, and its SQLSTATE when PostgreSQL sent one. */
const defectOf = (cause: Cause.Cause<unknown>): { readonly kind: string; readonly state: string | undefined } => {
  const defect = Result.getOrUndefined(Cause.findDefect(cause)) as { _tag?: unknown; name?: unknown } | undefined
  const kind = typeof defect?._tag === "string"
    ? defect._tag
    : typeof defect?.name === "string"
    ? defect.name
    : "unknown"
  return { kind, state: kind === "SqlError" ? sqlState(defect as SqlError.SqlError) : undefined }
}

/**
 * Whether `cause` says the batch itself cannot be stored: PostgreSQL answered and refused its
 * data (SQLSTATE class 22, data exception, or 23, integrity constraint violation). Anything
 * else (the database away or gone mid-statement, a rollback, an interruption, a failure
 * without a SQLSTATE) leaves the batch pending to be stored later: a report is dropped only on
 * PostgreSQL's word.
 */
export const isPoisoned = (cause: Cause.Cause<unknown>) => {
  if (Cause.hasFails(cause) || Cause.hasInterrupts(cause)) return false
  const { state } = defectOf(cause)
  return state !== undefined && (state.startsWith("22") || state.startsWith("23"))
}

const consume = Effect.gen(function*() {
  const transport = yield* JobTransport
  const ingest = yield* ResultIngest
  const { claimIdleMs } = yield* QueueConfig
  const registry = yield* ProbeRegistry
  const consumer = yield* transport.resultConsumer(`ingest-${hostname()}-${process.pid}`)
  const window = Duration.toMillis(Option.isSome(yield* EmbeddedDatabase) ? embeddedBatchWindow : batchWindow)
  let lastClaim = 0

  // After each read, the heartbeats it kept aside (the latest of each probe) are recorded by a
  // fiber of their own: one write at a time, however many reads meanwhile. Those left
  // unrecorded (the database is away) are lost: the next ones, 10 s later, say the same.
  const heartbeatsRead = yield* Queue.sliding<void>(1)
  yield* Queue.take(heartbeatsRead).pipe(
    Effect.andThen(Effect.suspend(() => consumer.takeHeartbeats())),
    Effect.flatMap((beats) => registry.recordHeartbeats(beats)),
    Effect.catchCause((cause) => Effect.logWarning("Recording probe heartbeats failed", cause)),
    Effect.forever,
    Effect.annotateLogs("fiber", "probe-heartbeats"),
    Effect.forkScoped
  )

  type Deliveries = ReadonlyArray<Delivery<ProbeReport>>
  const ack = (deliveries: Deliveries) => consumer.ack(deliveries.map((d) => d.id))
  const arrivalsOf = (deliveries: Deliveries) => {
    const arrivals = new Map(deliveries.map((d) => [d.value, d.receivedAt]))
    return (report: ProbeReport) => arrivals.get(report)
  }

  /**
   * Stores the deliveries, then acknowledges them. A batch PostgreSQL refuses (isPoisoned) is
   * stored again in halves; any other failure leaves it pending.
   */
  const store = (deliveries: Deliveries): Effect.Effect<void, IngestError | QueueError> =>
    deliveries.length === 0 ? Effect.void : ingest.ingest(deliveries.map((d) => d.value), arrivalsOf(deliveries)).pipe(
      Effect.matchCauseEffect({
        onFailure: (cause) => isPoisoned(cause) ? split(deliveries, cause) : Effect.failCause(cause),
        onSuccess: () => ack(deliveries)
      })
    )

  const split = (deliveries: Deliveries, cause: Cause.Cause<unknown>) => {
    if (deliveries.length > 1) {
      const half = Math.ceil(deliveries.length / 2)
      return Effect.andThen(store(deliveries.slice(0, half)), store(deliveries.slice(half)))
    }
    // One report PostgreSQL refuses: acknowledged and logged, named by its job and region only.
    const report = deliveries[0]!.value
    const { kind, state } = defectOf(cause)
    return Effect.logError("a probe report cannot be stored; dropped").pipe(
      Effect.annotateLogs({
        jobId: report.jobId.slice(0, 128),
        region: report.region,
        delivery: deliveries[0]!.id,
        failure: state === undefined ? kind : `${kind} ${state}`
      }),
      Effect.andThen(ack(deliveries))
    )
  }

  const liveClock = Clock.Clock.defaultValue()
  const step = Effect.gen(function*() {
    const began = liveClock.currentTimeMillisUnsafe()
    const deliveries = yield* consumer.read(batchSize, 1000)
    yield* store(deliveries)
    yield* Queue.offer(heartbeatsRead, undefined)
    if (deliveries.length > 0 && deliveries.length < batchSize) {
      const waited = liveClock.currentTimeMillisUnsafe() - began
      yield* Effect.sleep(Duration.millis(Math.max(0, window - waited))).pipe(
        Effect.provideService(Clock.Clock, liveClock)
      )
    }
    const now = yield* Clock.currentTimeMillis
    if (now - lastClaim >= claimIdleMs) {
      lastClaim = now
      yield* store(yield* consumer.claimStale(batchSize, claimIdleMs))
    }
  })
  // A failed batch stays pending and is claimed again later, by this instance or another.
  return yield* step.pipe(
    Effect.catchCause((cause) =>
      Effect.logWarning("Storing results failed; they stay pending", cause).pipe(
        Effect.andThen(Effect.sleep("1 second"))
      )
    ),
    Effect.forever
  )
}).pipe(Effect.scoped)

/** Deletes raw results and misses scheduled more than RESULTS_RETENTION_DAYS ago, in bounded batches. */
export const deleteOldChecks = Effect.gen(function*() {
  const repo = yield* CheckResultsRepo
  const { resultsRetentionDays } = yield* AppConfig
  const now = yield* Clock.currentTimeMillis
  const before = new Date(now - Duration.toMillis(Duration.days(resultsRetentionDays)))
  for (const table of ["check_results", "missed_checks"] as const) {
    let deleted = retentionBatch
    while (deleted === retentionBatch) deleted = yield* repo.deleteBefore(table, before, retentionBatch)
  }
})

export const IngestConsumer = Layer.effectDiscard(
  Effect.gen(function*() {
    yield* consume.pipe(Effect.annotateLogs("fiber", "ingest"), Effect.forkScoped)
    yield* deleteOldChecks.pipe(
      Effect.catchCause((cause) => Effect.logWarning("Deleting old results failed", cause)),
      Effect.repeat(Schedule.spaced("1 hour")),
      Effect.annotateLogs("fiber", "results-retention"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide([ResultIngest.layer, CheckResultsRepo.layer, ProbeRegistry.layer]))
