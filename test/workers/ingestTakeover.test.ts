/**
 * A killed ingest's results are taken over: the real entry point (`src/main.ts`, ROLES=ingest)
 * stores a first result, then reads a batch from the Redis consumer group that it cannot store
 * (its database is cut away behind a TCP proxy), and is SIGKILLed with them unacknowledged. A sibling ingest
 * claims them once they have been idle for QUEUE_CLAIM_IDLE_MS and stores each once. The
 * expected results are the ones the test published; the API shows what was stored.
 */
import { hostname } from "node:os"

import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { jobIdOf } from "../../src/domain/CheckJob.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { startService } from "../support/ChildProcess.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { tcpProxy } from "../support/TcpProxy.js"
import { adminUrl, TestDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const claimIdleMs = 1_000
/** Runs a minute apart, all within the bound ingest admits results in (7 minutes for a 60 s monitor). */
const count = 4

/** The ingest role as a process of its own, SIGKILLed when the scope closes if still running. */
const startIngestProcess = (databaseUrl: string, prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      startService("src/main.ts", {
        ROLES: "ingest",
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_STREAM_PREFIX: prefix,
        QUEUE_CLAIM_IDLE_MS: String(claimIdleMs)
      }, { directNode: true })
    ),
    (service) =>
      Effect.promise(async () => {
        if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill("SIGKILL")
        await service.exited
      })
  )

layer(LiveTestServer(), { excludeTestServices: true, timeout: "90 seconds" })("ingest take-over", (it) => {
  it.effect(
    "results a SIGKILLed ingest read and never acknowledged are claimed by a sibling and stored once",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const component = yield* client.components.create({ payload: { name: "Taken over" } })
        const monitor = yield* client.monitors.create({
          payload: { componentId: component.id, type: "http", url: "https://example.com", failureThreshold: 1 }
        })
        // Created ten minutes ago: ingest admits no run from before its creation.
        yield* (yield* SqlClient.SqlClient)`
          update monitors set created_at = created_at - interval '10 minutes' where id = ${monitor.id}`
        const { prefix, redis } = yield* redisPrefix
        // The results of the region the probes report from.
        const resultsKey = `${prefix}results:eu-west`

        // The victim reaches PostgreSQL only through a proxy the test can cut.
        const proxy = yield* tcpProxy(Number(new URL(adminUrl).port || 5432))
        const proxied = new URL(yield* TestDatabaseUrl)
        proxied.host = `127.0.0.1:${proxy.port}`
        const victim = yield* startIngestProcess(proxied.toString(), prefix)
        const victimName = `ingest-${hostname()}-${victim.child.pid}`
        const publisher = yield* RedisJobTransport.make({ url: redisUrl, prefix })
        const listed = client.monitors.results({ params: { id: monitor.id }, query: { limit: 500 } })

        // What the probes found: a first run, stored by the victim while it reaches its database...
        const start = slotOf(monitor.id, Date.now()) - (count + 1) * 60_000
        const runs = Array.from({ length: count + 1 }, (_, i) =>
          checkResult(monitor.id, "eu-west", start + i * 60_000, i % 3 !== 0))
        yield* publisher.publishResults(runs.slice(0, 1))
        const first = yield* eventually(listed, (stored) =>
          stored.length > 0, 45_000)
        expect(first.length, victim.output()).toBe(1)

        // ...then `count` more once it no longer does.
        yield* Effect.promise(() => proxy.cut())
        yield* publisher.publishResults(runs.slice(1))

        // The victim took them all and holds them: read, not stored, not acknowledged. Then it dies.
        const pending = Effect.promise(() =>
          redis.xpending(resultsKey, "ingest") as Promise<[number, unknown, unknown, Array<[string, string]> | null]>
        )
        const held = yield* eventually(
          pending,
          ([total, , , owners]) => total === count && owners?.length === 1 && owners[0]![0] === victimName,
          20_000
        )
        expect(held[0], victim.output()).toBe(count)
        victim.child.kill("SIGKILL")
        yield* Effect.promise(() => victim.exited)

        // A sibling ingest, on the database directly.
        yield* Layer.buildWithScope(
          Layer.fresh(IngestConsumer.pipe(Layer.provide(RedisJobTransport.layer({ url: redisUrl, prefix })))),
          yield* Effect.scope
        ).pipe(
          Effect.provideService(
            ConfigProvider.ConfigProvider,
            ConfigProvider.fromUnknown({ QUEUE_CLAIM_IDLE_MS: String(claimIdleMs) })
          )
        )

        // Every published result is listed, once, as it was found.
        const stored = yield* eventually(listed, (stored) => stored.length > count, 30_000)
        const expected = runs.map((result) => `${result.jobId} ${result.region} ${result.ok}`).sort()
        expect(
          stored.map((run) =>
            `${jobIdOf(monitor.id, run.scheduledAt.epochMilliseconds)} ${run.region} ${
              run.outcome === "checked" && run.ok
            }`
          ).sort()
        ).toEqual(expected)
      }),
    90_000
  )
})
