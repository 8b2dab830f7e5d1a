/**
 * A region left without a live probe for longer than the interval: its only probe (the real
 * `probes/main.ts`, a child process) is SIGKILLed holding jobs, more jobs arrive meanwhile, and a
 * probe started afterwards records the whole backlog as misses, without running it; ingest (in
 * this process, on the real Redis with a stream prefix of its own, real PostgreSQL) stores one
 * miss per run and no result. Real time, with a 1 s interval.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { CheckJob } from "../../src/domain/CheckJob.js"
import { slotAt } from "../../src/domain/Slots.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { type Service, startService } from "../support/ChildProcess.js"
import { eventually, realPause } from "../support/Eventually.js"
import { minimumLogLevel } from "../support/Logs.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { storedRuns } from "../support/StoredRuns.js"
import { LiveTestServer } from "../support/TestServer.js"

const claimIdleMs = 500

class Prefix extends Context.Service<Prefix, string>()("test/RestartPrefix") {}
const PrefixLive = Layer.effect(Prefix, Effect.map(redisPrefix, ({ prefix }) => prefix))

/** A target that never answers its first `hung` requests (the doomed probe's checks stay in flight). */
class Target extends Context.Service<Target, { url: string; requests: () => number }>()("test/RestartTarget") {}
const hung = 3
const TargetLive = Layer.effect(
  Target,
  Effect.acquireRelease(
    Effect.promise(async () => {
      let requests = 0
      const server = createServer((_request, response) => {
        if (++requests > hung) response.end("ok")
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests: () => requests }
    }),
    ({ server }) =>
      Effect.promise(() => {
        server.closeAllConnections()
        return new Promise((resolve) => server.close(resolve))
      })
  )
)

const Fleet = IngestConsumer.pipe(
  Layer.provideMerge(
    Layer.unwrap(Effect.map(Prefix, (prefix) => RedisJobTransport.layer({ url: redisUrl, prefix })))
  ),
  Layer.provide(minimumLogLevel("Warn")),
  Layer.provideMerge(LiveTestServer({ QUEUE_CLAIM_IDLE_MS: String(claimIdleMs) })),
  Layer.provideMerge(PrefixLive),
  Layer.merge(TargetLive)
)

/** `probes/main.ts` under node itself (a SIGKILL reaches the probe), killed when the test ends. */
const startProbe = (name: string) =>
  Effect.gen(function*() {
    const prefix = yield* Prefix
    const probe = yield* Effect.acquireRelease(
      Effect.sync(() =>
        startService("probes/main.ts", {
          REDIS_URL: redisUrl,
          REDIS_STREAM_PREFIX: prefix,
          PROBE_REGION: "eu",
          PROBE_NAME: name,
          PROBE_CONCURRENCY: "10",
          QUEUE_CLAIM_IDLE_MS: String(claimIdleMs)
        }, { directNode: true })
      ),
      (probe: Service) =>
        Effect.promise(() => {
          if (probe.child.exitCode === null && probe.child.signalCode === null) probe.child.kill("SIGKILL")
          return probe.exited
        })
    )
    const ready = yield* eventually(Effect.sync(() => probe.output().includes("probe ready")), (ok) => ok, 30_000)
    if (!ready) return yield* Effect.die(new Error(`${name} did not start:\n${probe.output()}`))
    return probe
  })

/**
 * Jobs of `count` monitors, each due at its first slot after `at` (of the 10 s interval
 * `monitorsOf` stores: ingest admits runs on the slots only), within 10 s; the jobs say 1 s,
 * so they are late a second after that.
 */
const jobs = (tag: string, count: number, url: string, at: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      CheckJob.forRun({
        monitorId: `${tag}${i}`,
        type: "http",
        url,
        timeoutMs: 20_000,
        expectedStatusCode: 200,
        intervalSeconds: 1
      }, slotAt(`${tag}${i}`, 10_000, at + 10_000))
  )

/** Monitors with the jobs' ids: ingest stores only the runs of monitors that exist. */
const monitorsOf = (list: ReadonlyArray<CheckJob>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [component] = yield* sql<{ id: string }>`
      insert into components (name) values (${`Probed ${list[0]!.monitorId}`}) returning id`
    yield* sql`
      insert into monitors (id, component_id, type, url, interval_seconds, timeout_ms, failure_threshold)
      select id, ${component!.id}, 'http', ${list[0]!.url}, 10, 1000, 1
      from unnest(${list.map((job) => job.monitorId)}::text[]) as id`
    return list
  })

layer(Fleet, { excludeTestServices: true, timeout: "90 seconds" })("a region without a live probe", (it) => {
  it.effect(
    "a probe started after the interval records the backlog as misses: one per run, no result",
    () =>
      Effect.gen(function*() {
        const transport = yield* JobTransport
        const target = yield* Target
        const doomed = yield* startProbe("eu-doomed")
        // Taken by the probe, then held in flight when it dies.
        const held = yield* monitorsOf(jobs("held", hung, target.url, Date.now()))
        yield* transport.publishJobs(held)
        expect(yield* eventually(Effect.sync(target.requests), (n) => n === hung, 10_000)).toBe(hung)
        doomed.child.kill("SIGKILL")
        yield* Effect.promise(() => doomed.exited)
        // Published while the region has no live probe.
        const unread = yield* monitorsOf(jobs("unread", 4, target.url, Date.now()))
        yield* transport.publishJobs(unread)
        const backlog = [...held, ...unread]
        // Every run of the backlog is more than its interval (1 s) late before a probe comes back.
        yield* realPause(Math.max(0, Math.max(...backlog.map((job) => job.scheduledAt)) + 1_100 - Date.now()))

        yield* startProbe("eu-revived")
        const ids = backlog.map((job) => job.id)
        const monitors = backlog.map((job) => job.monitorId)
        const expected = ids.toSorted().map((jobId) => ({ jobId, region: "eu", results: 0, misses: 1 }))
        expect(yield* eventually(storedRuns(monitors), (rows) => rows.length === ids.length, 20_000)).toEqual(expected)
        // None of them ran again.
        expect(target.requests()).toBe(hung)
        const sql = yield* SqlClient.SqlClient
        const probes = yield* sql<{ probe: string; reason: string }>`
        select distinct probe, reason from missed_checks where job_id = any(${ids}::text[])`
        expect(probes).toEqual([{ probe: "eu-revived", reason: "late" }])

        // The region is live again: a run due now is checked, not missed.
        const [fresh] = yield* monitorsOf(jobs("fresh", 1, target.url, Date.now()))
        yield* transport.publishJobs([fresh!])
        expect(yield* eventually(storedRuns([fresh!.monitorId]), (rows) => rows.length === 1, 10_000)).toEqual([
          { jobId: fresh!.id, region: "eu", results: 1, misses: 0 }
        ])
        // Duplicates would show here: nothing more arrives.
        yield* realPause(300)
        expect(yield* storedRuns([...monitors, fresh!.monitorId])).toHaveLength(ids.length + 1)
      }),
    90_000
  )
})
