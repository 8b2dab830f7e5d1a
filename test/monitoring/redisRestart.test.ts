/**
 * Redis dies under load and comes back empty (SIGKILL, restarted on the same port without
 * persistence): the scheduler, the probe and ingest reconnect and go on without a process
 * restart, and the API answers throughout. A redis-server of the test's own, real PostgreSQL,
 * a real local HTTP target, real time.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { expect, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { eventually, realPause } from "../support/Eventually.js"
import { minimumLogLevel } from "../support/Logs.js"
import { OwnRedisLive, OwnRedisServer } from "../support/RedisServer.js"
import { ApiClient, LiveTestServer, sendAnonymous } from "../support/TestServer.js"

class Target extends Context.Service<Target, { url: string; requests: () => number }>()("test/RestartTarget") {}

const TargetLive = Layer.effect(
  Target,
  Effect.acquireRelease(
    Effect.promise(async () => {
      let requests = 0
      const server = createServer((_req, res) => {
        requests++
        res.end("ok")
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests: () => requests }
    }),
    ({ server }) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
  )
)

const Transport = Layer.unwrap(Effect.map(OwnRedisServer, (redis) => RedisJobTransport.layer({ url: redis.url })))

const Fleet = Layer.mergeAll(
  CheckScheduler,
  IngestConsumer,
  ProbeAgent.layer({ region: "eu", name: "eu-1", concurrency: 16, claimIdleMs: 2000, readBlockMs: 500 })
).pipe(
  Layer.provide(Transport),
  // The outage makes every fiber log its failed attempts; the assertions say what matters.
  Layer.provide(minimumLogLevel("None")),
  Layer.provideMerge(LiveTestServer({ QUEUE_CLAIM_IDLE_MS: "2000" })),
  Layer.provideMerge(OwnRedisLive),
  Layer.merge(TargetLive)
)

layer(Fleet, { excludeTestServices: true, timeout: "60 seconds" })("Redis restarted under load", (it) => {
  it.effect(
    "scheduler, probe and ingest resume by themselves; the API answers during the outage",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const redis = yield* OwnRedisServer
        const target = yield* Target
        const component = yield* client.components.create({ payload: { name: "Behind Redis" } })
        const monitors = yield* Effect.forEach([1, 2, 3, 4], (i) =>
          client.monitors.create({
            payload: {
              componentId: component.id,
              type: "http",
              url: `${target.url}m${i}`,
              intervalSeconds: 10,
              timeoutMs: 2000
            }
          }))
        const ids = new Set(monitors.map((m) => m.id))
        /** The latest check time of each of our monitors (0: none yet). */
        const lastChecks = Effect.map(client.monitors.list({ query: {} }), (list) =>
          list.filter((m) =>
            ids.has(m.id)
          ).map((m) =>
            m.regionStates.reduce((latest, s) => Math.max(latest, DateTime.toEpochMillis(s.lastCheckedAt)), 0)
          ))

        // The scheduler reloads monitors every 5 s and checks a new one at once.
        const before = yield* eventually(lastChecks, (times) => times.length === 4 && times.every((t) => t > 0), 20_000)
        expect(before.every((t) => t > 0)).toBe(true)

        yield* Effect.promise(redis.kill)
        const downUntil = Date.now() + 3000
        let answered = 0
        while (Date.now() < downUntil) {
          const summary = yield* sendAnonymous("GET", "/api/v1/status")
          expect(summary.status).toBe(200)
          expect((yield* client.monitors.list({ query: {} })).filter((m) => ids.has(m.id))).toHaveLength(4)
          answered++
          yield* realPause(250)
        }
        expect(answered).toBeGreaterThan(3)

        yield* Effect.promise(redis.start)
        const restartedAt = Date.now()
        // Every monitor checked again after Redis came back: jobs published, run, results stored.
        const after = yield* eventually(lastChecks, (times) => times.every((t) => t > restartedAt), 30_000)
        expect(after.every((t) => t > restartedAt)).toBe(true)
        expect((yield* sendAnonymous("GET", "/api/v1/status")).status).toBe(200)
        const [one] = (yield* client.monitors.list({ query: {} })).filter((m) => m.id === monitors[0]!.id)
        expect(one).toMatchObject({ state: "up", regionStates: [{ region: "eu", ok: true }] })
      }),
    60_000
  )
})
