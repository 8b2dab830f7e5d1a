/**
 * How the probes of a region hand jobs to each other, with probe agents in this process, each on
 * a Redis transport of its own (as separate processes have) on the machine's Redis, with a
 * stream prefix of its own: a probe that is slow but alive keeps its jobs while a sibling looks
 * for silent ones; a probe leaving with jobs it could not deliver hands them back; and a job
 * run twice (its first probe stalled, then came back) is stored once. The claim time is ten
 * minutes throughout: whatever changes hands here does so by a probe's silence or its leaving.
 */
import { randomUUID } from "node:crypto"

import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Schema, Scope } from "effect"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob, CheckResult, isMissed, ProbeReport } from "../../src/domain/CheckJob.js"
import { probeAclRules } from "../../src/queue/ProbeAcl.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { slotOf } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"
import { storedRuns } from "../support/StoredRuns.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const claimIdleMs = 600_000
/** Shorter than the default 5 s, so the tests need not wait that long. */
const siblingSilentMs = 1_000

const decodeReport = Schema.decodeUnknownSync(Schema.fromJsonString(ProbeReport))

/** A probe agent of region `region` on a transport of its own; `stop` closes it as SIGTERM does. */
const startAgent = (url: string, prefix: string, region: string, name: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    yield* Layer.buildWithScope(
      ProbeAgent.layer({ region, name, concurrency: 8, claimIdleMs, siblingSilentMs, readBlockMs: 100 }).pipe(
        Layer.provide(RedisJobTransport.layer({ url, prefix, readyCheck: false }))
      ),
      scope
    )
    return { stop: Scope.close(scope, Exit.void) }
  })

/** Seconds in a day: the longest interval a monitor may have. */
const day = 86_400

const httpJob = (monitorId: string, url: string, region: string, scheduledAt = Date.now(), intervalSeconds = 60) =>
  CheckJob.forRun(
    { monitorId, type: "http", url, timeoutMs: 10_000, expectedStatusCode: 200, intervalSeconds, regions: [region] },
    scheduledAt
  )

layer(LiveTestServer(), { excludeTestServices: true, timeout: "60 seconds" })("probes handing jobs over", (it) => {
  it.effect("a probe that is slow but alive keeps its jobs: its sibling, looking for silent ones, takes none", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const region = "eu"
      let requests = 0
      // Each check takes three times as long as a silent sibling's jobs wait.
      const target = yield* httpServer((_request, response) => {
        requests++
        setTimeout(() => response.end("ok"), 3 * siblingSilentMs)
      })
      yield* startAgent(redisUrl, prefix, region, "slow")
      const jobs = Array.from({ length: 3 }, (_, i) => httpJob(`m${i}`, target.url, region))
      yield* Effect.promise(() =>
        Promise.all(jobs.map((job) => redis.xadd(`${prefix}jobs:${region}`, "*", "job", JSON.stringify(job))))
      )
      yield* eventually(Effect.sync(() => requests), (n) => n === 3)
      yield* startAgent(redisUrl, prefix, region, "sibling")
      const reports = yield* eventually(
        Effect.promise(() => redis.xrange(`${prefix}results:${region}`, "-", "+")).pipe(
          Effect.map((entries) =>
            entries.flatMap(([, fields]) => fields[0] === "result" ? [fields[1]!] : []).flatMap((json) =>
              json.includes("ProbeHeartbeat") ? [] : [decodeReport(json)]
            )
          )
        ),
        (list) => list.length >= 3,
        10_000
      )
      expect(reports.map((report) => [report.jobId, report.probe]).sort()).toEqual(
        jobs.map((job) => [job.id, "slow"]).sort()
      )
      // Each job ran once: the sibling never took one over.
      expect(requests).toBe(3)
      expect(reports.every((report) => !isMissed(report) && report.ok)).toBe(true)
    }))

  it.effect("a probe leaving with jobs it could not deliver hands them back: a sibling takes them at once", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const region = `r${randomUUID().slice(0, 8)}`
      // A probe whose results cannot be published: its user may not write its results stream.
      const user = `test-probe-${randomUUID()}`
      const password = randomUUID()
      yield* Effect.acquireRelease(
        Effect.promise(() =>
          redis.call(
            "ACL",
            "SETUSER",
            user,
            "reset",
            "on",
            `>${password}`,
            ...probeAclRules(prefix, region).filter((rule) => !rule.startsWith("(+xadd"))
          )
        ),
        () => Effect.promise(() => redis.call("ACL", "DELUSER", user))
      )
      const url = new URL(redisUrl)
      url.username = user
      url.password = password
      let requests = 0
      const target = yield* httpServer((_request, response) => {
        requests++
        response.end("ok")
      })
      const leaving = yield* startAgent(url.toString(), prefix, region, "leaving")
      const jobs = Array.from({ length: 2 }, (_, i) => httpJob(`m${i}`, target.url, region))
      yield* Effect.promise(() =>
        Promise.all(jobs.map((job) => redis.xadd(`${prefix}jobs:${region}`, "*", "job", JSON.stringify(job))))
      )
      yield* eventually(Effect.sync(() => requests), (n) => n === 2)
      // It stops (SIGTERM) while it still tries to publish their results, in vain.
      yield* leaving.stop
      const transport = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const sibling = yield* transport.jobConsumer(region, "sibling")
      const claimed = yield* sibling.claimStale(10, claimIdleMs)
      expect(claimed.map((delivery) => delivery.value.id).sort()).toEqual(jobs.map((job) => job.id).sort())
    }))

  it.effect("a job run by a probe that stalled and by the sibling that took it over is stored once", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const region = "eu"
      const client = yield* ApiClient
      const target = yield* httpServer((_request, response) => response.end("ok"))
      const component = yield* client.components.create({ payload: { name: `Handed over ${randomUUID()}` } })
      const monitor = yield* client.monitors.create({
        // A daily interval: a job is stale one interval after its slot, and the latest slot of a
        // 60 s one may be 59 s old already, so the sibling's take-over would find it late by chance.
        payload: { componentId: component.id, type: "http", url: target.url, regions: [region], intervalSeconds: day }
      })
      yield* Layer.buildWithScope(
        IngestConsumer.pipe(Layer.provide(RedisJobTransport.layer({ url: redisUrl, prefix }))),
        yield* Effect.scope
      ).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ QUEUE_CLAIM_IDLE_MS: String(claimIdleMs) })
        )
      )
      // The stalled probe takes the monitor's latest run, then goes silent.
      const job = httpJob(monitor.id, target.url, region, slotOf(monitor.id, Date.now(), day), day)
      const jobs = `${prefix}jobs:${region}`
      yield* Effect.promise(async () => {
        await redis.xgroup("CREATE", jobs, region, "$", "MKSTREAM")
        await redis.xadd(jobs, "*", "job", JSON.stringify(job))
        await redis.xreadgroup("GROUP", region, "stalled", "COUNT", 1, "STREAMS", jobs, ">")
      })
      yield* startAgent(redisUrl, prefix, region, "sibling")
      const [run] = yield* eventually(storedRuns([monitor.id]), (runs) => runs.length > 0, 10_000)
      expect(run).toEqual({ jobId: job.id, region, results: 1, misses: 0 })
      // The stalled probe comes back and delivers its own result of the same run.
      const late = CheckResult.make({
        jobId: job.id,
        monitorId: monitor.id,
        region,
        probe: "stalled",
        scheduledAt: job.scheduledAt,
        checkedAt: job.scheduledAt + 5,
        ok: true,
        durationMs: 3,
        timings: { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: 2 },
        statusCode: 200,
        error: null,
        sslDaysLeft: null
      })
      yield* Effect.promise(() => redis.xadd(`${prefix}results:${region}`, "*", "result", JSON.stringify(late)))
      // Ingest is done with it once its group has nothing unread (`lag`) and nothing pending.
      const ingestGroup = Effect.promise(() =>
        redis.xinfo("GROUPS", `${prefix}results:${region}`) as Promise<Array<Array<string | number>>>
      ).pipe(
        Effect.map((groups) =>
          groups.map((fields) => new Map(fields.flatMap((value, i) => i % 2 === 0 ? [[value, fields[i + 1]]] : [])))
            .find((info) => info.get("name") === "ingest")
        )
      )
      const done = yield* eventually(ingestGroup, (info) => info?.get("lag") === 0 && info.get("pending") === 0, 10_000)
      expect([done?.get("lag"), done?.get("pending")]).toEqual([0, 0])
      expect(yield* storedRuns([monitor.id])).toEqual([{ jobId: job.id, region, results: 1, misses: 0 }])
      const [listed, ...others] = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(others).toEqual([])
      expect(listed).toMatchObject({ outcome: "checked", region, probe: "sibling" })
    }))
})
