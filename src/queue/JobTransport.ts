/**
 * The job/result transport between the scheduler, the probe agents and ingest.
 *
 * Jobs go out on one stream that every region reads as its own consumer group: each region
 * receives every job, and the probes of one region share them. Results, and the misses of jobs
 * taken too late to run, come back on one stream read by the consumer group `ingest`. Delivery
 * is at least once: a delivery stays pending until acknowledged, and a consumer of the same
 * group claims what a dead sibling left pending. Jobs, results and misses carry the stable job
 * id (`monitorId:scheduledAt`) so a job run twice is stored once.
 *
 * Two implementations with the same semantics: Redis Streams (`RedisJobTransport`) and an
 * in-process one (`InProcessJobTransport`) for a single process without REDIS_URL.
 */
import type { Effect, Scope } from "effect"
import { Context, Schema } from "effect"

import type { CheckJob, ProbeReport, ScheduledRun } from "../domain/CheckJob.js"

export class QueueError extends Schema.TaggedError<QueueError>()("QueueError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** One delivery of a message to a consumer; `id` is what `ack` and `keepAlive` take. */
export interface Delivery<A> {
  readonly id: string
  readonly value: A
}

/** A member of a consumer group. Its scope owns its resources (in Redis, a dedicated connection). */
export interface Consumer<A> {
  readonly name: string
  /** New deliveries for this group, at most `max`; waits up to `blockMs` when there are none. */
  readonly read: (max: number, blockMs: number) => Effect.Effect<ReadonlyArray<Delivery<A>>, QueueError>
  /** Takes over at most `max` deliveries that any consumer of the group left unacknowledged for `minIdleMs`. */
  readonly claimStale: (max: number, minIdleMs: number) => Effect.Effect<ReadonlyArray<Delivery<A>>, QueueError>
  /** Marks deliveries as still being worked on, so siblings do not claim them as stale. */
  readonly keepAlive: (ids: ReadonlyArray<string>) => Effect.Effect<void, QueueError>
  /** Done with these deliveries: they leave the pending list for good. */
  readonly ack: (ids: ReadonlyArray<string>) => Effect.Effect<void, QueueError>
}

export interface JobTransportShape {
  /** Publishes jobs to every region, in one round trip. */
  readonly publishJobs: (jobs: ReadonlyArray<CheckJob>) => Effect.Effect<void, QueueError>
  /**
   * Publishes the jobs of these runs, in order: the scheduler's path, which skips building a
   * CheckJob per run where the transport only needs its JSON (Redis).
   */
  readonly publishRuns: (runs: ReadonlyArray<ScheduledRun>) => Effect.Effect<void, QueueError>
  /** Joins the consumer group of `region` (created when missing) as `consumer`. */
  readonly jobConsumer: (region: string, consumer: string) => Effect.Effect<Consumer<CheckJob>, QueueError, Scope.Scope>
  /** Publishes what probes found (results and misses) for ingest. */
  readonly publishResults: (reports: ReadonlyArray<ProbeReport>) => Effect.Effect<void, QueueError>
  /** Joins the consumer group `ingest` of the results as `consumer`. */
  readonly resultConsumer: (consumer: string) => Effect.Effect<Consumer<ProbeReport>, QueueError, Scope.Scope>
}

export class JobTransport extends Context.Tag("status-page/queue/JobTransport")<JobTransport, JobTransportShape>() {}

/** The consumer group that ingest reads results with. */
export const ingestGroup = "ingest"
