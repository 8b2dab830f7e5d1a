/**
 * What every job transport must do, run against each implementation: a job reaches the regions
 * it names (none: every known region, a region being known from its first heartbeat),
 * consumers of one region share them, stale deliveries are claimed by a sibling unless kept
 * alive, a silent member's at once, a member rejoining under its name gets back what it held
 * first, a member leaving hands back what it holds, results reach ingest even when published before it joined, with the region of their
 * stream, and heartbeats come aside, the latest per probe (at most `heartbeatsKeptPerRegion` probes
 * per region), never pending.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, type Layer, Result, Scope } from "effect"

import { CheckJob, CheckResult, JobTemplate, MissedCheck, type ScheduledRun } from "../../src/domain/CheckJob.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import {
  type Consumer,
  type Delivery,
  heartbeatsKeptPerRegion,
  JobTransport,
  type QueueError
} from "../../src/queue/JobTransport.js"

export const jobsFor = (count: number, monitor = "m", regions?: ReadonlyArray<string> | null) =>
  Array.from(
    { length: count },
    (_, i) =>
      CheckJob.forRun({
        monitorId: `${monitor}${i}`,
        type: "tcp",
        url: "127.0.0.1:1",
        timeoutMs: 1000,
        expectedStatusCode: 200,
        intervalSeconds: 60,
        ...(regions === undefined ? {} : { regions })
      }, 1_000 + i)
  )

/** A heartbeat of probe `name`, sent at `sentAt`. */
export const heartbeatOf = (name: string, sentAt = 2_000, startedAt = 1_000) =>
  new ProbeHeartbeat({
    name,
    version: "0.1.0",
    startedAt,
    sentAt,
    concurrency: 4,
    checksLastMinute: 3,
    lagMs: 5,
    inFlight: 1
  })

/** Makes `regions` known, as their probes' first heartbeats do. */
export const announce = (...regions: ReadonlyArray<string>) =>
  Effect.flatMap(
    JobTransport,
    (queue) =>
      Effect.forEach(regions, (region) => queue.publishHeartbeat(region, heartbeatOf(`${region}-announcer`)), {
        discard: true
      })
  )

/** The runs of `jobsFor(count, monitor)`, as the scheduler publishes them. */
export const runsFor = (count: number, monitor = "m"): Array<ScheduledRun> =>
  jobsFor(count, monitor).map((job) => ({
    template: Result.getOrThrow(JobTemplate.make({
      monitorId: job.monitorId,
      type: job.type,
      url: job.url,
      timeoutMs: job.timeoutMs,
      expectedStatusCode: job.expectedStatusCode,
      intervalSeconds: job.intervalSeconds,
      ...(job.regions === undefined ? {} : { regions: job.regions })
    })),
    scheduledAt: job.scheduledAt
  }))

export const resultFor = (job: CheckJob, region: string) =>
  CheckResult.make({
    jobId: job.id,
    monitorId: job.monitorId,
    region,
    probe: "test",
    scheduledAt: job.scheduledAt,
    checkedAt: job.scheduledAt + 1,
    ok: true,
    durationMs: 1,
    timings: { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: null },
    statusCode: null,
    error: null,
    sslDaysLeft: null
  })

/** Reads until `count` deliveries arrived (each read at most `max`), or 10 s passed. */
export const readAll = <A>(consumer: Consumer<A>, count: number, max = 100) =>
  Effect.gen(function*() {
    const all: Array<Delivery<A>> = []
    const deadline = Date.now() + 10_000
    while (all.length < count && Date.now() < deadline) all.push(...(yield* consumer.read(max, 100)))
    return all
  })

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const idsOf = <A>(deliveries: ReadonlyArray<Delivery<A>>) => deliveries.map((d) => d.id).sort()

/**
 * A jobs consumer in a scope of its own: `leave` closes it (its finalizers run, as on SIGTERM);
 * left open, it stands for a dead process, which runs none. Closed with the test's scope anyway.
 */
const member = (region: string, name: string) =>
  Effect.gen(function*() {
    const queue = yield* JobTransport
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const consumer = yield* queue.jobConsumer(region, name).pipe(Scope.provide(scope))
    return { consumer, leave: Scope.close(scope, Exit.void) }
  })

export const transportContract = (
  name: string,
  transport: () => Layer.Layer<JobTransport, QueueError>
) =>
  describe(`${name}: transport semantics`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, JobTransport | Scope.Scope>): Effect.Effect<A, E | QueueError> =>
      Effect.scoped(body).pipe(Effect.provide(transport()))

    it.live("every known region receives every job; consumers of one region share them", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        yield* announce("eu", "us")
        const euA = yield* queue.jobConsumer("eu", "eu-a")
        const euB = yield* queue.jobConsumer("eu", "eu-b")
        const us = yield* queue.jobConsumer("us", "us-a")
        const jobs = jobsFor(40)
        yield* queue.publishJobs(jobs)

        const seenByA: Array<string> = []
        const seenByB: Array<string> = []
        while (seenByA.length + seenByB.length < jobs.length) {
          const a = yield* euA.read(5, 100)
          const b = yield* euB.read(5, 100)
          if (a.length + b.length === 0) break
          seenByA.push(...a.map((d) => d.value.id))
          seenByB.push(...b.map((d) => d.value.id))
        }
        expect(seenByA.length).toBeGreaterThan(0)
        expect(seenByB.length).toBeGreaterThan(0)
        expect([...seenByA, ...seenByB].sort()).toEqual(jobs.map((j) => j.id).sort())
        expect(seenByA.filter((id) => seenByB.includes(id))).toEqual([])

        const usSeen = yield* readAll(us, jobs.length)
        expect(usSeen.map((d) => d.value)).toEqual(jobs)
        expect(yield* us.read(10, 50)).toEqual([])
      })))

    it.live("published runs arrive as the same jobs, in order, in every region", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        yield* announce("eu", "us")
        const eu = yield* queue.jobConsumer("eu", "eu-a")
        const us = yield* queue.jobConsumer("us", "us-a")
        yield* queue.publishRuns([])
        yield* queue.publishRuns(runsFor(2500))
        const expected = jobsFor(2500)
        for (const consumer of [eu, us]) {
          const received = yield* readAll(consumer, expected.length, 1000)
          expect(received.map((d) => d.value)).toEqual(expected)
          expect(received.every((d) => d.value instanceof CheckJob)).toBe(true)
        }
      })))

    it.live("a sibling claims what a consumer left pending, unless it is kept alive or acknowledged", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const dying = yield* queue.jobConsumer("eu", "dying")
        const sibling = yield* queue.jobConsumer("eu", "sibling")
        yield* queue.publishJobs(jobsFor(6, "m", ["eu"]))
        const held = yield* readAll(dying, 6)
        expect(held).toHaveLength(6)
        yield* dying.ack([held[0]!.id])
        expect(yield* sibling.claimStale(10, 250)).toEqual([])

        yield* sleep(300)
        yield* dying.keepAlive([held[1]!.id])
        const claimed = yield* sibling.claimStale(10, 250)
        expect(claimed.map((d) => d.value.id).sort()).toEqual(held.slice(2).map((d) => d.value.id).sort())
        // Claimed deliveries are fresh again for their new owner.
        expect(yield* sibling.claimStale(10, 250)).toEqual([])
        yield* sibling.ack(claimed.map((d) => d.id))
        yield* dying.ack([held[1]!.id])
        yield* sleep(300)
        expect(yield* sibling.claimStale(10, 250)).toEqual([])
      })))

    it.live("a silent member's jobs are claimed at once; a member that keeps its jobs alive keeps them", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const { consumer: dead } = yield* member("eu", "dead")
        const alive = yield* queue.jobConsumer("eu", "alive")
        const sibling = yield* queue.jobConsumer("eu", "sibling")
        yield* queue.publishJobs(jobsFor(4, "m", ["eu"]))
        const deadHeld = yield* readAll(dead, 2, 2)
        const aliveHeld = yield* readAll(alive, 2, 2)
        expect(deadHeld).toHaveLength(2)
        expect(aliveHeld).toHaveLength(2)
        // Both just read: neither is silent.
        expect(yield* sibling.claimFromSilent(10, 1_000)).toEqual([])
        // The live one keeps its jobs alive as a busy probe does; the dead one does nothing.
        for (let i = 0; i < 4; i++) {
          yield* sleep(300)
          yield* alive.keepAlive(aliveHeld.map((d) => d.id))
        }
        const claimed = yield* sibling.claimFromSilent(10, 1_000)
        expect(idsOf(claimed)).toEqual(idsOf(deadHeld))
        expect(claimed.map((d) => d.value.id).sort()).toEqual(deadHeld.map((d) => d.value.id).sort())
        // Now the sibling's, just claimed: neither silent nor stale.
        expect(yield* sibling.claimFromSilent(10, 1_000)).toEqual([])
        expect(yield* sibling.claimStale(10, 60_000)).toEqual([])
      })))

    it.live("a member rejoining under its name gets what it held back first, then new jobs", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        // A previous run of probe-1, dead with three jobs in hand.
        const { consumer: before } = yield* member("eu", "probe-1")
        yield* queue.publishJobs(jobsFor(3, "m", ["eu"]))
        const held = yield* readAll(before, 3)
        yield* queue.publishJobs(jobsFor(2, "n", ["eu"]))
        const after = yield* queue.jobConsumer("eu", "probe-1")
        const first = yield* after.read(10, 100)
        expect(first.map((d) => d.value)).toEqual(held.map((d) => d.value))
        expect(idsOf(first)).toEqual(idsOf(held))
        expect((yield* readAll(after, 2)).map((d) => d.value)).toEqual(jobsFor(2, "n", ["eu"]))
        expect(yield* after.read(10, 50)).toEqual([])
      })))

    it.live("a member leaving hands back what it holds: a sibling's next claim takes it, whatever the claim time", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const leaving = yield* member("eu", "leaving")
        const sibling = yield* queue.jobConsumer("eu", "sibling")
        yield* queue.publishJobs(jobsFor(3, "m", ["eu"]))
        const held = yield* readAll(leaving.consumer, 3)
        yield* leaving.consumer.ack([held[0]!.id])
        expect(yield* sibling.claimStale(10, 60_000)).toEqual([])
        yield* leaving.leave
        expect(idsOf(yield* sibling.claimStale(10, 60_000))).toEqual(idsOf(held.slice(1)))
      })))

    it.live("results and misses published before ingest joins reach it, once acknowledged they stay done", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const [missed, ...checked] = jobsFor(3)
        // A miss travels with the results and comes out as a MissedCheck.
        const results = [
          MissedCheck.of(missed!, "eu", "eu-1", missed!.scheduledAt + 60_001),
          ...checked.map((job) => resultFor(job, "eu"))
        ]
        yield* queue.publishResults(results)
        const ingest = yield* queue.resultConsumer("ingest-1")
        const received = yield* readAll(ingest, 3)
        expect(received.map((d) => d.value)).toEqual(results)
        yield* ingest.ack(received.map((d) => d.id))
        yield* sleep(150)
        const other = yield* queue.resultConsumer("ingest-2")
        expect(yield* other.claimStale(10, 100)).toEqual([])
        expect(yield* other.read(10, 50)).toEqual([])
      })))
    it.live("a job reaches only the regions it names; a region is known from its first heartbeat", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const eu = yield* queue.jobConsumer("eu", "eu-a")
        const us = yield* queue.jobConsumer("us", "us-a")
        const ap = yield* queue.jobConsumer("ap", "ap-a")
        // No heartbeat yet from eu, us or ap: a job for every region reaches none of them.
        expect([...(yield* queue.knownRegions())].filter((r) => ["eu", "us", "ap"].includes(r))).toEqual([])
        yield* queue.publishJobs(jobsFor(1, "unseen"))
        // A job that names its regions reaches them, known or not.
        const named = jobsFor(2, "named", ["eu", "ap"])
        yield* queue.publishJobs(named)
        yield* announce("eu", "us")
        expect([...(yield* queue.knownRegions())].filter((r) => ["eu", "us", "ap"].includes(r)).sort()).toEqual([
          "eu",
          "us"
        ])
        const everywhere = jobsFor(1, "everywhere", null)
        yield* queue.publishJobs(everywhere)
        const received = (consumer: Consumer<CheckJob>, count: number) =>
          Effect.map(readAll(consumer, count), (list) => list.map((d) => d.value.id))
        expect(yield* received(eu, 3)).toEqual([...named, ...everywhere].map((j) => j.id))
        expect(yield* received(us, 1)).toEqual(everywhere.map((j) => j.id))
        expect(yield* received(ap, 2)).toEqual(named.map((j) => j.id))
        for (const consumer of [eu, us, ap]) expect(yield* consumer.read(10, 50)).toEqual([])
      })))

    it.live("ingest reads every region's results; heartbeats come aside, the latest per probe, never pending", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const ingest = yield* queue.resultConsumer("ingest-1")
        const [a, b] = jobsFor(2)
        yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1", 2_000))
        yield* queue.publishResults([resultFor(a!, "eu"), resultFor(b!, "us")])
        yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1", 12_000))
        yield* queue.publishHeartbeat("us", heartbeatOf("us-1", 3_000))
        // eu-1 restarts: the new run's heartbeat replaces the old run's, whatever their clocks say.
        yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1", 5_000, 4_000))

        const received = yield* readAll(ingest, 2)
        expect(received.map((d) => `${d.value.monitorId} ${d.value.region}`).sort()).toEqual(["m0 eu", "m1 us"])
        // Heartbeats may come with a later read than the results.
        const beats = new Map<string, ProbeHeartbeat>()
        const deadline = Date.now() + 10_000
        while (beats.size < 2 && Date.now() < deadline) {
          for (const { heartbeat, region } of yield* ingest.takeHeartbeats()) {
            beats.set(`${region} ${heartbeat.name}`, heartbeat)
          }
          if (beats.size < 2) {
            expect(yield* ingest.read(10, 100)).toEqual([])
          }
        }
        expect([...beats.keys()].sort()).toEqual(["eu eu-1", "us us-1"])
        expect(beats.get("eu eu-1")).toMatchObject({ startedAt: 4_000, sentAt: 5_000 })
        expect(beats.get("us us-1")).toEqual(heartbeatOf("us-1", 3_000))
        expect(yield* ingest.takeHeartbeats()).toEqual([])

        // The results stay pending until acknowledged; the heartbeats are not pending at all.
        yield* sleep(150)
        const other = yield* queue.resultConsumer("ingest-2")
        const stale = yield* other.claimStale(10, 100)
        expect(stale.map((d) => d.value.monitorId).sort()).toEqual(["m0", "m1"])
        expect(yield* other.takeHeartbeats()).toEqual([])
        yield* other.ack(stale.map((d) => d.id))
        yield* sleep(150)
        expect(yield* ingest.claimStale(10, 100)).toEqual([])
      })))

    it.live("heartbeats kept aside are capped per region: a flood of names in one region leaves another's", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
        const ingest = yield* queue.resultConsumer("ingest-1")
        const [a, b] = jobsFor(2)
        // One region sends more names than are kept, then calm's probe speaks; a result after the
        // heartbeats of each stream tells when they were all read.
        for (let n = 0; n < heartbeatsKeptPerRegion + 50; n++) {
          yield* queue.publishHeartbeat("flood", heartbeatOf(`fake-${n}`))
        }
        yield* queue.publishHeartbeat("calm", heartbeatOf("calm-1"))
        yield* queue.publishResults([resultFor(a!, "flood"), resultFor(b!, "calm")])
        yield* ingest.ack((yield* readAll(ingest, 2, 1_000)).map((d) => d.id))

        const kept = yield* ingest.takeHeartbeats()
        expect(kept.filter((beat) => beat.region === "flood")).toHaveLength(heartbeatsKeptPerRegion)
        expect(kept.filter((beat) => beat.region === "calm").map((beat) => beat.heartbeat)).toEqual([
          heartbeatOf("calm-1")
        ])
      })))
  })
