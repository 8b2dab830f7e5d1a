/** The Redis Streams transport on the real Redis at 127.0.0.1:6379, one key prefix per test. */
import { randomUUID } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"

import { CheckJob, errorMaxLength } from "../../src/domain/CheckJob.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { checkResult } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { heartbeatOf, jobsFor, readAll, resultFor, runsFor, transportContract } from "./transportContract.js"

transportContract(
  "redis streams",
  () => Layer.unwrap(Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix })))
)

describe("redis streams transport", () => {
  it.live("a blocking read holds its own connection: publishing and acknowledging go on meanwhile", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      // A read of the results stream, which the jobs published below do not wake.
      const name = `blocked-${randomUUID()}`
      // The region's results stream exists (a probe's heartbeat, taken aside): the read has a stream to block on.
      yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1"))
      const idle = yield* queue.resultConsumer(name)
      expect(yield* idle.read(10, 100)).toEqual([])
      expect((yield* idle.takeHeartbeats()).map((beat) => beat.region)).toEqual(["eu"])
      const worker = yield* queue.jobConsumer("us", "worker")
      const blocked = yield* Effect.forkChild(idle.read(10, 30_000))
      // Redis shows the reader's connection (named after the consumer) blocked in XREADGROUP.
      const isBlocked = Effect.promise(async () =>
        (await redis.client("LIST") as string).split("\n").some((line) =>
          line.includes(` name=status-page-ingest-${name} `) && / flags=\w*b/.test(line) &&
          line.includes("cmd=xreadgroup")
        )
      )
      expect(yield* eventually(isBlocked, (yes) => yes)).toBe(true)

      yield* queue.publishJobs(jobsFor(3, "m", ["us"]))
      const received = yield* readAll(worker, 3)
      expect(received).toHaveLength(3)
      yield* worker.ack(received.map((d) => d.id))
      expect(yield* Effect.promise(() => redis.xpending(`${prefix}jobs:us`, "us"))).toEqual([0, null, null, null])
      // All while the read was still blocked; a result wakes it.
      expect(yield* Effect.sync(() => blocked.pollUnsafe())).toBeUndefined()
      yield* queue.publishResults([checkResult("m", "eu", 0, true)])
      expect((yield* Fiber.join(blocked)).map((d) => d.value.monitorId)).toEqual(["m"])
    }).pipe(Effect.scoped))

  it.live("the streams are trimmed, so memory stays bounded with nobody reading", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, jobsMaxLength: 100 })
      yield* queue.publishJobs(jobsFor(1000, "m", ["eu"]))
      const length = yield* Effect.promise(() => redis.xlen(`${prefix}jobs:eu`))
      expect(length).toBeGreaterThanOrEqual(100)
      expect(length).toBeLessThan(300)
    }).pipe(Effect.scoped))

  it.live("published runs are trimmed too, and a failed XADD fails the publish after every pipeline answered", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, jobsMaxLength: 100 })
      yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1"))
      yield* queue.publishRuns(runsFor(5000))
      const length = yield* Effect.promise(() => redis.xlen(`${prefix}jobs:eu`))
      expect(length).toBeGreaterThanOrEqual(100)
      expect(length).toBeLessThan(300)
      const last = yield* Effect.promise(() => redis.xrevrange(`${prefix}jobs:eu`, "+", "-", "COUNT", 1))
      expect(JSON.parse(last[0]![1][1]!).id).toBe("m4999:5999")

      // The key is no stream any more: every XADD fails with WRONGTYPE.
      yield* Effect.promise(() => redis.del(`${prefix}jobs:eu`).then(() => redis.set(`${prefix}jobs:eu`, "x")))
      const error = yield* Effect.flip(queue.publishRuns(runsFor(5000)))
      expect(error._tag).toBe("QueueError")
      expect(error.message).toContain("WRONGTYPE")
      // The connection is still usable afterwards.
      yield* Effect.promise(() => redis.del(`${prefix}jobs:eu`))
      yield* queue.publishRuns(runsFor(3))
      expect(yield* Effect.promise(() => redis.xlen(`${prefix}jobs:eu`))).toBe(3)
    }).pipe(Effect.scoped))

  it.live("an entry that is not a valid job (or asks for more than a monitor can) is acknowledged and skipped", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const consumer = yield* queue.jobConsumer("eu", "reader")
      yield* Effect.promise(() => redis.xadd(`${prefix}jobs:eu`, "*", "job", "{\"not\":\"a job\"}"))
      // A job no monitor could have made: a time-out of ten minutes (the cap is 60 s).
      const [valid] = jobsFor(1, "long", ["eu"])
      const tooLong = JSON.stringify({ ...valid, timeoutMs: 600_000 })
      yield* Effect.promise(() => redis.xadd(`${prefix}jobs:eu`, "*", "job", tooLong))
      yield* queue.publishJobs(jobsFor(1, "m", ["eu"]))
      const received = yield* readAll(consumer, 1)
      expect(received.map((d) => d.value.id)).toEqual(["m0:1000"])
      const pending = yield* Effect.promise(() => redis.xpending(`${prefix}jobs:eu`, "eu"))
      expect(pending[0]).toBe(1)
    }).pipe(Effect.scoped))

  it.live("a report comes with the region of its stream, whatever its payload says; one over the caps is dropped", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const [job] = jobsFor(2)
      const claimsUs = JSON.stringify(resultFor(job!, "us"))
      const oversized = JSON.stringify({ ...resultFor(job!, "eu"), ok: false, error: "x".repeat(errorMaxLength + 1) })
      // Written as anyone able to write eu's stream could (the service never reads a payload's region).
      yield* Effect.promise(() =>
        redis.xadd(`${prefix}results:eu`, "*", "result", claimsUs).then(() =>
          redis.xadd(`${prefix}results:eu`, "*", "result", oversized)
        )
      )
      const ingest = yield* queue.resultConsumer("ingest-1")
      const received = yield* readAll(ingest, 1)
      expect(received.map((d) => [d.value.jobId, d.value.region])).toEqual([[job!.id, "eu"]])
      yield* ingest.ack(received.map((d) => d.id))
      // The oversized one was acknowledged when it was dropped: nothing is left pending.
      expect((yield* Effect.promise(() => redis.xpending(`${prefix}results:eu`, "ingest")))[0]).toBe(0)
    }).pipe(Effect.scoped))

  it.live("the results stream of the region push is never read: only the service records push monitors' runs", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const [job] = jobsFor(1)
      // As a probe given the ACL rules of a region named push could write it.
      yield* Effect.promise(() =>
        redis.xadd(`${prefix}results:push`, "*", "result", JSON.stringify(resultFor(job!, "push")))
      )
      yield* queue.publishResults([checkResult("m", "eu", 0, true)])
      expect([...(yield* queue.knownRegions())]).not.toContain("push")
      const ingest = yield* queue.resultConsumer("ingest-1")
      const received = yield* readAll(ingest, 1)
      expect(received.map((d) => d.value.region)).toEqual(["eu"])
      yield* ingest.ack(received.map((d) => d.id))
      expect(yield* ingest.read(10, 100)).toEqual([])
    }).pipe(Effect.scoped))

  it.live("an entry longer than its stream's limit is acknowledged and dropped unread, however valid its JSON", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const [job] = jobsFor(2)
      // Valid JSON of a valid result, padded with whitespace past the limit: JSON.parse would take it.
      const result = JSON.stringify(resultFor(job!, "eu"))
      const padded = `${" ".repeat(RedisJobTransport.maxEntryLength.result - result.length + 1)}${result}`
      const atLimit = `${" ".repeat(RedisJobTransport.maxEntryLength.result - result.length)}${result}`
      yield* Effect.promise(() =>
        redis.xadd(`${prefix}results:eu`, "*", "result", padded).then(() =>
          redis.xadd(`${prefix}results:eu`, "*", "result", atLimit)
        )
      )
      const ingest = yield* queue.resultConsumer("ingest-1")
      const received = yield* readAll(ingest, 1)
      expect(received.map((d) => d.value.jobId)).toEqual([job!.id])
      yield* ingest.ack(received.map((d) => d.id))
      expect((yield* Effect.promise(() => redis.xpending(`${prefix}results:eu`, "ingest")))[0]).toBe(0)

      // Jobs have a limit of their own, above the largest job a monitor can make.
      const consumer = yield* queue.jobConsumer("eu", "reader")
      const jobJson = JSON.stringify(jobsFor(1, "big", ["eu"])[0])
      yield* Effect.promise(() =>
        redis.xadd(
          `${prefix}jobs:eu`,
          "*",
          "job",
          `${" ".repeat(RedisJobTransport.maxEntryLength.job - jobJson.length + 1)}${jobJson}`
        )
      )
      yield* queue.publishJobs(jobsFor(1, "m", ["eu"]))
      expect((yield* readAll(consumer, 1)).map((d) => d.value.id)).toEqual(["m0:1000"])
      expect((yield* Effect.promise(() => redis.xpending(`${prefix}jobs:eu`, "eu")))[0]).toBe(1)
    }).pipe(Effect.scoped))

  it.live("the largest job a monitor can make fits its stream's limit", () =>
    Effect.gen(function*() {
      const { prefix } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const consumer = yield* queue.jobConsumer("eu", "reader")
      const [job] = jobsFor(1, "largest", ["eu"])
      // Every character JSON escapes as six: a body, twenty headers and twenty assertions at their caps.
      const largest = {
        ...job!,
        type: "http" as const,
        method: "POST" as const,
        body: "\u0001".repeat(65_536),
        headers: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${i}`, "\u0001".repeat(1024)])),
        expectedStatusCodes: Array.from({ length: 20 }, () => "200-299"),
        bodyContains: "\u0001".repeat(1024),
        bodyNotContains: "\u0001".repeat(1024),
        dnsExpectedValues: Array.from({ length: 20 }, () => "\u0001".repeat(1024)),
        // A JSONPath name may hold any character but the quote and the backslash.
        assertions: Array.from({ length: 20 }, () => ({
          path: `$['${"\u0001".repeat(250)}']`,
          op: "==" as const,
          value: "\u0001".repeat(1024)
        }))
      }
      yield* queue.publishJobs([new CheckJob(largest)])
      expect((yield* readAll(consumer, 1)).map((d) => d.value.body?.length)).toEqual([65_536])
    }).pipe(Effect.scoped))

  it.live("a jobs consumer leaving with nothing held leaves the group; one holding jobs stays, its jobs handed back", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const consumers = () =>
        Effect.promise(() => redis.xinfo("CONSUMERS", `${prefix}jobs:eu`, "eu") as Promise<Array<Array<string>>>).pipe(
          Effect.map((list) => list.map((fields) => fields[1]).sort())
        )
      const join = (name: string) =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const consumer = yield* queue.jobConsumer("eu", name).pipe(Scope.provide(scope))
          return { consumer, leave: Scope.close(scope, Exit.void) }
        })
      const done = yield* join("done")
      const holding = yield* join("holding")
      yield* queue.publishJobs(jobsFor(2, "m", ["eu"]))
      const finished = yield* done.consumer.read(1, 100)
      yield* done.consumer.ack(finished.map((d) => d.id))
      const held = yield* holding.consumer.read(1, 100)
      expect(yield* consumers()).toEqual(["done", "holding"])
      yield* done.leave
      yield* holding.leave
      // Deleting "holding" would have dropped its job: it stays, the job pending under it but
      // idle long ago, so any claim takes it.
      expect(yield* consumers()).toEqual(["holding"])
      const [entry] = yield* Effect.promise(() =>
        redis.xpending(`${prefix}jobs:eu`, "eu", "-", "+", 10) as Promise<Array<[string, string, number, number]>>
      )
      expect(entry![0]).toBe(held[0]!.id)
      expect(entry![1]).toBe("holding")
      expect(entry![2]).toBeGreaterThan(24 * 60 * 60 * 1000)
    }).pipe(Effect.scoped))

  it.live("jobs a read is served after it was interrupted are handed back at once", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const name = `interrupted-${randomUUID()}`
      const consumer = yield* queue.jobConsumer("eu", name)
      const sibling = yield* queue.jobConsumer("eu", "sibling")
      // The first read of a consumer looks at what it holds; the next one blocks for new jobs.
      expect(yield* consumer.read(10, 10)).toEqual([])
      const reading = yield* Effect.forkChild(consumer.read(10, 2_000))
      const isBlocked = Effect.promise(async () =>
        (await redis.client("LIST") as string).split("\n").some((line) =>
          line.includes(` name=status-page-eu-${name} `) && / flags=\w*b/.test(line)
        )
      )
      expect(yield* eventually(isBlocked, (yes) => yes)).toBe(true)
      yield* Fiber.interrupt(reading)
      // Redis still serves the read; nobody will run what it brings but a sibling.
      yield* queue.publishJobs(jobsFor(1, "m", ["eu"]))
      const claimed = yield* eventually(sibling.claimStale(10, 60_000), (list) => list.length > 0)
      expect(claimed.map((d) => d.value.id)).toEqual(["m0:1000"])
    }).pipe(Effect.scoped))

  it.live("a claim of stale jobs right after XINFO CONSUMERS found none pending asks Redis nothing; one pending is claimed", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const probe = yield* queue.jobConsumer("eu", "probe")
      const sibling = yield* queue.jobConsumer("eu", "sibling")
      // What Redis runs on this test's streams, as MONITOR sees it.
      const seen: Array<string> = []
      const monitor = yield* Effect.acquireRelease(
        Effect.promise(() => redis.duplicate().monitor()),
        (client) => Effect.sync(() => client.disconnect())
      )
      monitor.on("monitor", (_time: string, args: Array<string>) => {
        const command = args[0]!.toLowerCase()
        if ((command === "xinfo" || command === "xautoclaim") && args.some((arg) => arg.startsWith(prefix))) {
          seen.push(command)
        }
      })
      // An idle probe's claim: nothing pending in the group, so no XAUTOCLAIM.
      expect(yield* probe.claimFromSilent(10, 5_000)).toEqual([])
      expect(yield* probe.claimStale(10, 10_000)).toEqual([])
      // A job the sibling holds, idle past the claim time: claimed as before.
      yield* queue.publishJobs(jobsFor(1, "m", ["eu"]))
      const held = yield* readAll(sibling, 1)
      yield* Effect.sleep("150 millis")
      expect(yield* probe.claimFromSilent(10, 60_000)).toEqual([])
      const claimed = yield* probe.claimStale(10, 100)
      expect(claimed.map((d) => d.id)).toEqual(held.map((d) => d.id))
      expect(yield* eventually(Effect.sync(() => [...seen]), (commands) => commands.length >= 3)).toEqual([
        "xinfo",
        "xinfo",
        "xautoclaim"
      ])
    }).pipe(Effect.scoped))

  it.live("a joining consumer removes long-idle siblings with nothing pending, and keeps the others", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, forgetConsumersIdleMs: 200 })
      const consumers = () =>
        Effect.promise(() => redis.xinfo("CONSUMERS", `${prefix}jobs:eu`, "eu") as Promise<Array<Array<string>>>).pipe(
          Effect.map((list) => list.map((fields) => fields[1]).sort())
        )
      const holder = yield* queue.jobConsumer("eu", "holder")
      const ghost = yield* queue.jobConsumer("eu", "ghost")
      // A consumer exists in Redis once it has received an entry.
      yield* queue.publishJobs(jobsFor(2, "m", ["eu"]))
      const held = yield* holder.read(1, 100)
      const done = yield* ghost.read(1, 100)
      yield* ghost.ack(done.map((d) => d.id))
      expect(held).toHaveLength(1)
      expect(yield* consumers()).toEqual(["ghost", "holder"])
      yield* Effect.sleep("300 millis")
      const newcomer = yield* queue.jobConsumer("eu", "newcomer")
      expect(yield* consumers()).toEqual(["holder"])
      yield* queue.publishJobs(jobsFor(1, "n", ["eu"]))
      expect(yield* newcomer.read(1, 100)).toHaveLength(1)
      expect(yield* consumers()).toEqual(["holder", "newcomer"])
    }).pipe(Effect.scoped))
})
