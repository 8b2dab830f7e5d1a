/**
 * The job/result transport between the scheduler, the probe agents and ingest.
 *
 * Every region has a stream of its own each way: jobs go out on `jobs:<region>`, read by the
 * consumer group named after the region (the probes of one region share its jobs); results,
 * misses and heartbeats come back on `results:<region>`, read by the consumer group `ingest`.
 * A probe authenticated as its region's Redis user reads only its region's jobs and writes
 * only its region's results, so ingest takes a report's region from the stream it came on,
 * never from the payload.
 *
 * A job goes to each region its monitor names; a monitor naming none (`regions: null`) runs in
 * every known region: a region is known once its results stream exists (a probe's first
 * heartbeat creates it).
 *
 * Delivery is at least once: a delivery stays pending until acknowledged, and a consumer of
 * the same group claims what a dead sibling left pending. Jobs, results and misses carry the
 * stable job id (`monitorId:scheduledAt`) so a job run twice is stored once. Heartbeats are
 * the exception: only the latest of a probe matters, so they are acknowledged as they are read.
 *
 * The probes of a region hand jobs over faster than the claim time (`JobConsumer`): a probe
 * takes over at once the jobs of a sibling that has gone silent (no read, claim or keep-alive
 * for a few seconds), takes back what a previous run of its own name held, and hands back
 * what it still holds when it leaves.
 *
 * Two implementations with the same semantics: Redis Streams (`RedisJobTransport`) and an
 * in-process one (`InProcessJobTransport`) for a single process without REDIS_URL.
 */
import type { Scope } from "effect"
import { Context, Schema } from "effect"
import { Effect } from "effect"

import { type CheckJob, inRegion, type ProbeReport, type ScheduledRun } from "../domain/CheckJob.js"
import type { ProbeHeartbeat } from "../domain/ProbeHeartbeat.js"

export class QueueError extends Schema.TaggedError<QueueError>()("QueueError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/**
 * One delivery of a message to a consumer; `id` is what `ack` and `keepAlive` take. `receivedAt`
 * (epoch ms) is when the queue took the message in, by the queue's clock: how late a report
 * arrived is judged by it, not by when ingest got round to it.
 */
export interface Delivery<A> {
  readonly id: string
  readonly value: A
  readonly receivedAt?: number
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

/**
 * A probe's member of its region's jobs group: a Consumer, and also
 * - its first reads deliver what is still pending under its name (a previous run of the same
 *   name died holding it) before any new job;
 * - closing its scope hands back what it still holds, so a sibling's next `claimStale` takes it
 *   whatever its idle time, and leaves the group when it holds nothing.
 */
export interface JobConsumer extends Consumer<CheckJob> {
  /**
   * Takes over at most `max` deliveries held by siblings silent for `silentMs` (no read, claim
   * or keep-alive since): consumers that died with jobs in hand. A sibling that keeps its
   * deliveries alive more often than that keeps them, however long it works on them.
   */
  readonly claimFromSilent: (
    max: number,
    silentMs: number
  ) => Effect.Effect<ReadonlyArray<Delivery<CheckJob>>, QueueError>
}

/** A heartbeat as ingest reads it, with the region of the stream it came on. */
export interface RegionHeartbeat {
  readonly region: string
  readonly heartbeat: ProbeHeartbeat
}

/**
 * Ingest's member of the group `ingest`, over every region's results stream. The reports it
 * delivers carry the region of their stream (a payload naming another region is overruled).
 * Heartbeats read along with them are acknowledged at once and kept aside, the latest per
 * probe, until `takeHeartbeats`: recording them never holds up results.
 */
export interface ResultConsumer extends Consumer<ProbeReport> {
  readonly takeHeartbeats: () => Effect.Effect<ReadonlyArray<RegionHeartbeat>>
}

export interface JobTransportShape {
  /**
   * Publishes each job to each region it names (none: every known region, looked up afresh),
   * in one round trip.
   */
  readonly publishJobs: (jobs: ReadonlyArray<CheckJob>) => Effect.Effect<void, QueueError>
  /**
   * Publishes the jobs of these runs, in order, as `publishJobs` does: the scheduler's path,
   * which skips building a CheckJob per run where the transport only needs its JSON (Redis),
   * and takes the known regions as found at most a few seconds ago.
   */
  readonly publishRuns: (runs: ReadonlyArray<ScheduledRun>) => Effect.Effect<void, QueueError>
  /** Joins the consumer group of `region` on its jobs stream (created when missing) as `consumer`. */
  readonly jobConsumer: (region: string, consumer: string) => Effect.Effect<JobConsumer, QueueError, Scope.Scope>
  /** Publishes what probes found (results and misses), each on the results stream of its `region`. */
  readonly publishResults: (reports: ReadonlyArray<ProbeReport>) => Effect.Effect<void, QueueError>
  /** Publishes a probe's heartbeat on the results stream of `region`, which makes the region known. */
  readonly publishHeartbeat: (region: string, heartbeat: ProbeHeartbeat) => Effect.Effect<void, QueueError>
  /** Joins the consumer group `ingest` of every region's results as `consumer`. */
  readonly resultConsumer: (consumer: string) => Effect.Effect<ResultConsumer, QueueError, Scope.Scope>
  /** The regions whose results stream exists now (in-process: also `local`). */
  readonly knownRegions: () => Effect.Effect<ReadonlySet<string>, QueueError>
  /** For the metrics: each known region's streams, their length and entries delivered but not acknowledged. */
  readonly backlog: () => Effect.Effect<ReadonlyArray<StreamBacklog>, QueueError>
}

export interface StreamBacklog {
  readonly stream: "jobs" | "results"
  readonly region: string
  readonly length: number
  readonly pending: number
}

export class JobTransport
  extends Context.Service<JobTransport, JobTransportShape>()("status-page/queue/JobTransport")
{}

/** The consumer group that ingest reads results with. */
export const ingestGroup = "ingest"

/**
 * Heartbeats a result consumer keeps aside per region between two `takeHeartbeats` (more than
 * the registry holds per region, `maxProbesPerRegion`). The cap is per region so that a region
 * flooding the stream with made-up names cannot push out another region's heartbeats.
 */
export const heartbeatsKeptPerRegion = 256

/** Heartbeats kept aside: per region, the latest of each probe by name. */
export type KeptHeartbeats = Map<string, Map<string, RegionHeartbeat>>

/** Whether `next` replaces `current` for one probe: another run of it, or a later heartbeat of the same run. */
export const supersedes = (next: ProbeHeartbeat, current: ProbeHeartbeat) =>
  next.startedAt !== current.startedAt || next.sentAt > current.sentAt

/** Keeps `beat` aside in `kept` if it is the latest of its probe (and its region has room left for a new probe). */
export const keepHeartbeat = (kept: KeptHeartbeats, beat: RegionHeartbeat) => {
  let region = kept.get(beat.region)
  if (region === undefined) {
    region = new Map()
    kept.set(beat.region, region)
  }
  const current = region.get(beat.heartbeat.name)
  if (
    current === undefined ? region.size < heartbeatsKeptPerRegion : supersedes(beat.heartbeat, current.heartbeat)
  ) {
    region.set(beat.heartbeat.name, beat)
  }
}

/** What travels on a results stream. */
export type ProbeMessage = ProbeReport | ProbeHeartbeat

/** A message of a results stream, with the region of that stream. */
export interface RegionMessage {
  readonly region: string
  readonly message: ProbeMessage
}

const isHeartbeat = (message: ProbeMessage): message is ProbeHeartbeat =>
  "_tag" in message && message._tag === "ProbeHeartbeat"

/**
 * Ingest's view of a consumer of results streams: reports in their stream's region, heartbeats
 * kept aside and acknowledged at once. Each transport reads its streams; this part is shared.
 */
export const resultConsumerOf = (consumer: Consumer<RegionMessage>): ResultConsumer => {
  const kept: KeptHeartbeats = new Map()
  const split = (deliveries: ReadonlyArray<Delivery<RegionMessage>>) =>
    Effect.gen(function*() {
      const reports: Array<Delivery<ProbeReport>> = []
      const beats: Array<string> = []
      for (const { id, receivedAt, value: { message, region } } of deliveries) {
        if (isHeartbeat(message)) {
          keepHeartbeat(kept, { region, heartbeat: message })
          beats.push(id)
        } else {reports.push({
            id,
            value: inRegion(message, region),
            ...(receivedAt === undefined ? {} : { receivedAt })
          })}
      }
      // A heartbeat left pending is claimed and kept again later: harmless, never worth failing the read.
      yield* consumer.ack(beats).pipe(
        Effect.catch((error) =>
          Effect.logWarning("acknowledging heartbeats failed").pipe(Effect.annotateLogs({ error: error.message }))
        )
      )
      return reports
    })
  return {
    name: consumer.name,
    read: (max, blockMs) => Effect.flatMap(consumer.read(max, blockMs), split),
    claimStale: (max, minIdleMs) => Effect.flatMap(consumer.claimStale(max, minIdleMs), split),
    keepAlive: consumer.keepAlive,
    ack: consumer.ack,
    takeHeartbeats: () =>
      Effect.sync(() => {
        const beats = [...kept.values()].flatMap((region) => [...region.values()])
        kept.clear()
        return beats
      })
  }
}
