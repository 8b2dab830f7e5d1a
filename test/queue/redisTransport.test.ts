/** The Redis Streams transport on the real Redis at 127.0.0.1:6379, one key prefix per test. */
import { randomUUID } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option } from "effect"

import * as RedisJobTransport from "../../src/queue/RedisJobTransport.js"
import { checkResult } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { jobsFor, readAll, runsFor, transportContract } from "./transportContract.js"

transportContract(
  "redis streams",
  () => Layer.unwrapScoped(Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix })))
)

describe("redis streams transport", () => {
  it.live("a blocking read holds its own connection: publishing and acknowledging go on meanwhile", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      // A read of the results stream, which the jobs published below do not wake.
      const name = `blocked-${randomUUID()}`
      const idle = yield* queue.resultConsumer(name)
      const worker = yield* queue.jobConsumer("us", "worker")
      const blocked = yield* Effect.fork(idle.read(10, 30_000))
      // Redis shows the reader's connection (named after the consumer) blocked in XREADGROUP.
      const isBlocked = Effect.promise(async () =>
        (await redis.client("LIST") as string).split("\n").some((line) =>
          line.includes(` name=status-page-ingest-${name} `) && / flags=\w*b/.test(line) &&
          line.includes("cmd=xreadgroup")
        )
      )
      expect(yield* eventually(isBlocked, (yes) => yes)).toBe(true)

      yield* queue.publishJobs(jobsFor(3))
      const received = yield* readAll(worker, 3)
      expect(received).toHaveLength(3)
      yield* worker.ack(received.map((d) => d.id))
      expect(yield* Effect.promise(() => redis.xpending(`${prefix}jobs`, "us"))).toEqual([0, null, null, null])
      // All while the read was still blocked; a result wakes it.
      expect(Option.isNone(yield* Fiber.poll(blocked))).toBe(true)
      yield* queue.publishResults([checkResult("m", "eu", 0, true)])
      expect((yield* Fiber.join(blocked)).map((d) => d.value.monitorId)).toEqual(["m"])
    }).pipe(Effect.scoped))

  it.live("the streams are trimmed, so memory stays bounded with nobody reading", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, jobsMaxLength: 100 })
      yield* queue.publishJobs(jobsFor(1000))
      const length = yield* Effect.promise(() => redis.xlen(`${prefix}jobs`))
      expect(length).toBeGreaterThanOrEqual(100)
      expect(length).toBeLessThan(300)
    }).pipe(Effect.scoped))

  it.live("published runs are trimmed too, and a failed XADD fails the publish after every pipeline answered", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, jobsMaxLength: 100 })
      yield* queue.publishRuns(runsFor(5000))
      const length = yield* Effect.promise(() => redis.xlen(`${prefix}jobs`))
      expect(length).toBeGreaterThanOrEqual(100)
      expect(length).toBeLessThan(300)
      const last = yield* Effect.promise(() => redis.xrevrange(`${prefix}jobs`, "+", "-", "COUNT", 1))
      expect(JSON.parse(last[0]![1][1]!).id).toBe("m4999:5999")

      // The key is no stream any more: every XADD fails with WRONGTYPE.
      yield* Effect.promise(() => redis.del(`${prefix}jobs`).then(() => redis.set(`${prefix}jobs`, "x")))
      const error = yield* Effect.flip(queue.publishRuns(runsFor(5000)))
      expect(error._tag).toBe("QueueError")
      expect(error.message).toContain("WRONGTYPE")
      // The connection is still usable afterwards.
      yield* Effect.promise(() => redis.del(`${prefix}jobs`))
      yield* queue.publishRuns(runsFor(3))
      expect(yield* Effect.promise(() => redis.xlen(`${prefix}jobs`))).toBe(3)
    }).pipe(Effect.scoped))

  it.live("an entry that is not a valid job is acknowledged and skipped", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const consumer = yield* queue.jobConsumer("eu", "reader")
      yield* Effect.promise(() => redis.xadd(`${prefix}jobs`, "*", "job", "{\"not\":\"a job\"}"))
      yield* queue.publishJobs(jobsFor(1))
      const received = yield* readAll(consumer, 1)
      expect(received.map((d) => d.value.id)).toEqual(["m0:1000"])
      const pending = yield* Effect.promise(() => redis.xpending(`${prefix}jobs`, "eu"))
      expect(pending[0]).toBe(1)
    }).pipe(Effect.scoped))

  it.live("a joining consumer removes long-idle siblings with nothing pending, and keeps the others", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const queue = yield* RedisJobTransport.make({ url: redisUrl, prefix, forgetConsumersIdleMs: 200 })
      const consumers = () =>
        Effect.promise(() => redis.xinfo("CONSUMERS", `${prefix}jobs`, "eu") as Promise<Array<Array<string>>>).pipe(
          Effect.map((list) => list.map((fields) => fields[1]).sort())
        )
      const holder = yield* queue.jobConsumer("eu", "holder")
      const ghost = yield* queue.jobConsumer("eu", "ghost")
      // A consumer exists in Redis once it has received an entry.
      yield* queue.publishJobs(jobsFor(2))
      const held = yield* holder.read(1, 100)
      const done = yield* ghost.read(1, 100)
      yield* ghost.ack(done.map((d) => d.id))
      expect(held).toHaveLength(1)
      expect(yield* consumers()).toEqual(["ghost", "holder"])
      yield* Effect.sleep("300 millis")
      const newcomer = yield* queue.jobConsumer("eu", "newcomer")
      expect(yield* consumers()).toEqual(["holder"])
      yield* queue.publishJobs(jobsFor(1, "n"))
      expect(yield* newcomer.read(1, 100)).toHaveLength(1)
      expect(yield* consumers()).toEqual(["holder", "newcomer"])
    }).pipe(Effect.scoped))
})
