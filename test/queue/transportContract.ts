/**
 * What every job transport must do, run against each implementation: regions each receive
 * every job, consumers of one region share them, stale deliveries are claimed by a sibling
 * unless kept alive, and results reach ingest even when published before it joined.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, type Layer, type Scope } from "effect"

import { CheckJob, CheckResult, JobTemplate, MissedCheck, type ScheduledRun } from "../../src/domain/CheckJob.js"
import { type Consumer, type Delivery, JobTransport, type QueueError } from "../../src/queue/JobTransport.js"

export const jobsFor = (count: number, monitor = "m") =>
  Array.from(
    { length: count },
    (_, i) =>
      CheckJob.forRun({
        monitorId: `${monitor}${i}`,
        type: "tcp",
        url: "127.0.0.1:1",
        timeoutMs: 1000,
        expectedStatusCode: 200,
        intervalSeconds: 60
      }, 1_000 + i)
  )

/** The runs of `jobsFor(count, monitor)`, as the scheduler publishes them. */
export const runsFor = (count: number, monitor = "m"): Array<ScheduledRun> =>
  jobsFor(count, monitor).map((job) => ({
    template: Either.getOrThrow(JobTemplate.make({
      monitorId: job.monitorId,
      type: job.type,
      url: job.url,
      timeoutMs: job.timeoutMs,
      expectedStatusCode: job.expectedStatusCode,
      intervalSeconds: job.intervalSeconds,
      regions: job.regions
    })),
    scheduledAt: job.scheduledAt
  }))

export const resultFor = (job: CheckJob, region: string) =>
  new CheckResult({
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

export const transportContract = (
  name: string,
  transport: () => Layer.Layer<JobTransport, QueueError>
) =>
  describe(`${name}: transport semantics`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, JobTransport | Scope.Scope>): Effect.Effect<A, E | QueueError> =>
      Effect.scoped(body).pipe(Effect.provide(transport()))

    it.live("every region receives every job; consumers of one region share them", () =>
      run(Effect.gen(function*() {
        const queue = yield* JobTransport
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
        yield* queue.publishJobs(jobsFor(6))
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
  })
