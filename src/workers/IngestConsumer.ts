/**
 * The ingest role: reads results and misses in batches from the `ingest` consumer group, stores
 * them (ResultIngest) and acknowledges them only after they are stored; takes over what a dead
 * ingest instance left pending; deletes raw results and misses past RESULTS_RETENTION_DAYS.
 */
import { hostname } from "node:os"

import { Clock, Duration, Effect, Layer, Schedule } from "effect"

import { AppConfig, QueueConfig } from "../Config.js"
import type { ProbeReport } from "../domain/CheckJob.js"
import { ChecksRepo } from "../persistence/ChecksRepo.js"
import type { Delivery } from "../queue/JobTransport.js"
import { JobTransport } from "../queue/JobTransport.js"
import { ResultIngest } from "../services/monitoring/ResultIngest.js"

const batchSize = 500
const retentionBatch = 10_000

const consume = Effect.gen(function*() {
  const transport = yield* JobTransport
  const ingest = yield* ResultIngest
  const { claimIdleMs } = yield* QueueConfig
  const consumer = yield* transport.resultConsumer(`ingest-${hostname()}-${process.pid}`)
  let lastClaim = 0

  const store = (deliveries: ReadonlyArray<Delivery<ProbeReport>>) =>
    deliveries.length === 0 ? Effect.void : ingest.ingest(deliveries.map((d) => d.value)).pipe(
      Effect.zipRight(consumer.ack(deliveries.map((d) => d.id)))
    )

  const step = Effect.gen(function*() {
    yield* store(yield* consumer.read(batchSize, 1000))
    const now = yield* Clock.currentTimeMillis
    if (now - lastClaim >= claimIdleMs) {
      lastClaim = now
      yield* store(yield* consumer.claimStale(batchSize, claimIdleMs))
    }
  })
  // A failed batch stays pending and is claimed again later, by this instance or another.
  return yield* step.pipe(
    Effect.catchAllCause((cause) =>
      Effect.logWarning("Storing results failed; they stay pending", cause).pipe(
        Effect.zipRight(Effect.sleep("1 second"))
      )
    ),
    Effect.forever
  )
}).pipe(Effect.scoped)

/** Deletes raw results and misses scheduled more than RESULTS_RETENTION_DAYS ago, in bounded batches. */
export const deleteOldChecks = Effect.gen(function*() {
  const repo = yield* ChecksRepo
  const { resultsRetentionDays } = yield* AppConfig
  const now = yield* Clock.currentTimeMillis
  const before = new Date(now - Duration.toMillis(Duration.days(resultsRetentionDays)))
  for (const table of ["check_results", "missed_checks"] as const) {
    let deleted = retentionBatch
    while (deleted === retentionBatch) deleted = yield* repo.deleteBefore(table, before, retentionBatch)
  }
})

export const IngestConsumer = Layer.scopedDiscard(
  Effect.gen(function*() {
    yield* consume.pipe(Effect.annotateLogs("fiber", "ingest"), Effect.forkScoped)
    yield* deleteOldChecks.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("Deleting old results failed", cause)),
      Effect.repeat(Schedule.spaced("1 hour")),
      Effect.annotateLogs("fiber", "results-retention"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide([ResultIngest.Default, ChecksRepo.Default]))
