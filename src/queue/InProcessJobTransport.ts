/**
 * The job transport inside one process (no REDIS_URL): the same consumer-group semantics as
 * Redis Streams, on Effect queues. Each region has a jobs stream of its own; the results of
 * every region share one stream whose messages carry the region they were published for (the
 * one probe of the process is trusted). Each group has its own bounded queue (the oldest
 * messages are dropped when it is full, like a trimmed stream) and a pending list with
 * delivery times read from the Clock, so stale claims follow the TestClock in tests. Like the
 * Redis one, a consumer is seen when it reads, claims, keeps alive or acknowledges; its first
 * reads give back what is pending under its name; and when its scope closes, what it holds is
 * handed back. The known regions are `local` (the in-process probe's) and every region that
 * published on results.
 */
import { Clock, Effect, Layer, Option, Queue, type Scope } from "effect"

import type { CheckJob, ProbeReport } from "../domain/CheckJob.js"
import type { ProbeHeartbeat } from "../domain/ProbeHeartbeat.js"
import {
  type Consumer,
  type Delivery,
  ingestGroup,
  JobTransport,
  type RegionMessage,
  resultConsumerOf
} from "./JobTransport.js"

interface Pending<A> {
  readonly delivery: Delivery<A>
  consumer: string
  deliveredAt: number
}

interface Group<A> {
  readonly queue: Queue.Queue<Delivery<A>>
  readonly pending: Map<string, Pending<A>>
  /** When each consumer last read, claimed, kept alive or acknowledged (the Clock's). */
  readonly seen: Map<string, number>
}

/** A member of a group; `claimFromSilent` as JobTransport's JobConsumer has it, for any payload. */
interface StreamConsumer<A> extends Consumer<A> {
  readonly claimFromSilent: (max: number, silentMs: number) => Effect.Effect<ReadonlyArray<Delivery<A>>>
}

/** Up to `max` messages the queue holds now, without waiting (none when it is empty). */
const takeUpTo = <A>(queue: Queue.Queue<A>, max: number) =>
  Effect.sync(() => {
    const taken: Array<A> = []
    while (taken.length < max) {
      const next = Queue.takeUnsafe(queue)
      if (next === undefined || next._tag === "Failure") break
      taken.push(next.value)
    }
    return taken
  })

/** A stream with consumer groups. A group created later does not see earlier messages (Redis `$`). */
const makeStream = <A>(capacity: number) =>
  Effect.sync(() => {
    const groups = new Map<string, Group<A>>()
    let sequence = 0

    const group = (name: string) =>
      Effect.gen(function*() {
        const existing = groups.get(name)
        if (existing !== undefined) return existing
        const created: Group<A> = {
          queue: yield* Queue.sliding<Delivery<A>>(capacity),
          pending: new Map(),
          seen: new Map()
        }
        groups.set(name, created)
        return created
      })

    const publish = (values: ReadonlyArray<A>) =>
      Effect.flatMap(Clock.currentTimeMillis, (receivedAt) =>
        Effect.forEach(groups.values(), (g) =>
          Queue.offerAll(
            g.queue,
            values.map((value, index) => ({ id: `${sequence + index + 1}`, value, receivedAt }))
          ), {
          discard: true
        })).pipe(Effect.tap(Effect.sync(() => (sequence += values.length))))

    const consumer = (groupName: string, name: string): Effect.Effect<StreamConsumer<A>, never, Scope.Scope> =>
      Effect.gen(function*() {
        const g = yield* group(groupName)
        /** What was pending under this name when it joined (a previous member of it), not given back yet. */
        const own = [...g.pending.values()].filter((entry) => entry.consumer === name).map((entry) => entry.delivery)
        const seen = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => g.seen.set(name, now)))
        const deliver = (deliveries: Iterable<Delivery<A>>) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const list = Array.from(deliveries)
            for (const delivery of list) {
              g.pending.set(delivery.id, { delivery, consumer: name, deliveredAt: now })
            }
            return list
          })
        const claim = (max: number, isStale: (entry: Pending<A>, now: number) => boolean) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const stale: Array<Delivery<A>> = []
            for (const entry of g.pending.values()) {
              if (stale.length >= max) break
              if (isStale(entry, now)) stale.push(entry.delivery)
            }
            return deliver(stale)
          }).pipe(Effect.tap(seen))
        // Closing the scope hands back what this member holds: a sibling's next claim takes it.
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const entry of g.pending.values()) if (entry.consumer === name) entry.deliveredAt = -Infinity
            g.seen.delete(name)
          })
        )
        return {
          name,
          read: (max, blockMs) =>
            Effect.suspend(() => {
              const held = own.splice(0, max).filter((delivery) => g.pending.get(delivery.id)?.consumer === name)
              if (held.length > 0) return deliver(held)
              return Queue.take(g.queue).pipe(
                Effect.timeoutOption(blockMs),
                Effect.flatMap(Option.match({
                  onNone: () => Effect.succeed<ReadonlyArray<Delivery<A>>>([]),
                  onSome: (first) =>
                    Effect.flatMap(takeUpTo(g.queue, Math.max(0, max - 1)), (rest) => deliver([first, ...rest]))
                }))
              )
            }).pipe(Effect.tap(seen), (read) => Effect.andThen(seen, read)),
          claimStale: (max, minIdleMs) => claim(max, (entry, now) => now - entry.deliveredAt >= minIdleMs),
          claimFromSilent: (max, silentMs) =>
            claim(max, (entry, now) =>
              entry.consumer !== name && now - (g.seen.get(entry.consumer) ?? -Infinity) >= silentMs &&
              now - entry.deliveredAt >= silentMs),
          keepAlive: (ids) =>
            Effect.map(Clock.currentTimeMillis, (now) => {
              for (const id of ids) {
                const entry = g.pending.get(id)
                if (entry !== undefined) {
                  entry.consumer = name
                  entry.deliveredAt = now
                }
              }
            }).pipe(Effect.tap(seen)),
          ack: (ids) =>
            Effect.sync(() => {
              for (const id of ids) {
                g.pending.delete(id)
              }
            }).pipe(Effect.tap(seen))
        }
      })

    /** Like Redis: the longest group's unread entries, and the entries delivered but not acknowledged. */
    const backlog = Effect.map(
      Effect.forEach(groups.values(), (g) =>
        Effect.map(Queue.size(g.queue), (size) => [size, g.pending.size])),
      (sizes) => ({
        length: Math.max(
          0,
          ...sizes.map(([size]) =>
            size!
          )
        ),
        pending: sizes.reduce((sum, [, pending]) => sum + pending!, 0)
      })
    )

    return { publish, consumer, group, backlog }
  })

export interface InProcessTransportOptions {
  /** Messages kept per group before the oldest are dropped (default 100,000). */
  readonly capacity?: number
}

/** The region of the service's own probe, always known. */
export const localRegion = "local"

export const make = (options: InProcessTransportOptions = {}) =>
  Effect.gen(function*() {
    const capacity = options.capacity ?? 100_000
    const jobStreams = new Map<string, Effect.Success<ReturnType<typeof makeStream<CheckJob>>>>()
    const jobStream = (region: string) =>
      Effect.gen(function*() {
        const existing = jobStreams.get(region)
        if (existing !== undefined) return existing
        const created = yield* makeStream<CheckJob>(capacity)
        jobStreams.set(region, created)
        return created
      })
    const known = new Set([localRegion])
    const results = yield* makeStream<RegionMessage>(capacity)
    // Results published before ingest joins are kept for it, as the Redis group created at 0 does.
    yield* results.group(ingestGroup)

    /** Publishes each job to its regions (none: every known region), in order within each region. */
    const publishJobs = (jobs: ReadonlyArray<CheckJob>) =>
      Effect.suspend(() => {
        const byRegion = new Map<string, Array<CheckJob>>()
        for (const job of jobs) {
          for (const region of job.regions ?? known) {
            const list = byRegion.get(region)
            if (list === undefined) byRegion.set(region, [job])
            else list.push(job)
          }
        }
        return Effect.forEach(
          byRegion,
          ([region, list]) => Effect.flatMap(jobStream(region), (stream) => stream.publish(list)),
          { discard: true }
        )
      })

    const publishMessages = (messages: ReadonlyArray<RegionMessage>) =>
      Effect.suspend(() => {
        for (const { region } of messages) known.add(region)
        return results.publish(messages)
      })

    return JobTransport.of({
      publishJobs,
      publishRuns: (runs) => publishJobs(runs.map((run) => run.template.job(run.scheduledAt, run.traceparent))),
      jobConsumer: (region, consumer) =>
        Effect.flatMap(jobStream(region), (stream) => stream.consumer(region, consumer)),
      publishResults: (reports: ReadonlyArray<ProbeReport>) =>
        publishMessages(reports.map((report) => ({ region: report.region, message: report }))),
      publishHeartbeat: (region: string, heartbeat: ProbeHeartbeat) =>
        publishMessages([{ region, message: heartbeat }]),
      resultConsumer: (consumer) => Effect.map(results.consumer(ingestGroup, consumer), resultConsumerOf),
      knownRegions: () => Effect.sync(() => new Set(known)),
      // One results stream holds every region's results here: it is reported as `local`'s.
      backlog: () =>
        Effect.all([
          Effect.forEach(
            jobStreams,
            ([region, stream]) => Effect.map(stream.backlog, (b) => ({ stream: "jobs" as const, region, ...b }))
          ),
          Effect.map(results.backlog, (b) => [{ stream: "results" as const, region: localRegion, ...b }])
        ]).pipe(Effect.map(([jobs, results]) => [...jobs, ...results]))
    })
  })

export const layer = (options: InProcessTransportOptions = {}) => Layer.effect(JobTransport, make(options))
