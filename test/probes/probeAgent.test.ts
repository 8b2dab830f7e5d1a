/**
 * The probe agent on the in-process transport (what `npm start` runs without REDIS_URL),
 * probing a real loopback HTTP server.
 */
import { readFileSync } from "node:fs"

import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Clock, ConfigProvider, Effect, Layer, Logger, Result } from "effect"
import { TestClock } from "effect/testing"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob, isMissed } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { JobTransportLive } from "../../src/Roles.js"
import { readAll } from "../queue/transportContract.js"
import { eventually } from "../support/Eventually.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import { httpServer } from "../support/Servers.js"

const packageVersion = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string
}).version

const agentOptions = { region: "local", name: "p1", concurrency: 4, claimIdleMs: 30_000, readBlockMs: 100 }

const httpJob = (monitorId: string, url: string, scheduledAt = Date.now()) =>
  CheckJob.forRun(
    { monitorId, type: "http", url, timeoutMs: 5000, expectedStatusCode: 200, intervalSeconds: 60 },
    scheduledAt
  )

describe("probe agent (in-process transport)", () => {
  it.live("runs fresh jobs into results, records stale ones as missed, and respects its concurrency limit", () =>
    Effect.gen(function*() {
      let active = 0
      let peak = 0
      const paths: Array<string> = []
      const target = yield* httpServer((request, response) => {
        paths.push(request.url!)
        active++
        peak = Math.max(peak, active)
        setTimeout(() => {
          active--
          response.writeHead(request.url === "/down" ? 500 : 200).end()
        }, 50)
      })
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      yield* Layer.buildWithScope(ProbeAgent.layer(agentOptions), yield* Effect.scope)

      const fresh = Array.from({ length: 10 }, (_, i) => httpJob(`up${i}`, `${target.url}/up${i}`))
      const failing = httpJob("down", `${target.url}/down`)
      const stale = httpJob("stale", `${target.url}/stale`, Date.now() - 61_000)
      yield* queue.publishJobs([...fresh, failing, stale])

      const [results, misses] = Arr.partition(
        (yield* readAll(ingest, 12)).map((d) => d.value),
        (report) => isMissed(report) ? Result.fail(report) : Result.succeed(report)
      )
      expect(results.map((r) => r.jobId).sort()).toEqual([...fresh, failing].map((j) => j.id).sort())
      // Not run: one miss instead, stamped with the region and the probe that gave it up.
      expect(misses).toEqual([
        expect.objectContaining({
          _tag: "MissedCheck",
          jobId: stale.id,
          monitorId: "stale",
          region: "local",
          probe: "p1",
          scheduledAt: stale.scheduledAt,
          reason: "late"
        })
      ])
      expect(misses[0]!.recordedAt - stale.scheduledAt).toBeGreaterThan(60_000)
      for (const result of results) {
        expect(result).toMatchObject({ region: "local", probe: "p1" })
        expect(result.checkedAt).toBeGreaterThanOrEqual(result.scheduledAt)
      }
      expect(results.find((r) => r.monitorId === "down")).toMatchObject({ ok: false, statusCode: 500 })
      expect(results.filter((r) => r.ok)).toHaveLength(10)
      expect(paths).not.toContain("/stale")
      expect(peak).toBe(4)
      expect(yield* ingest.read(10, 200)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(InProcessJobTransport.layer())))

  it.effect("logs a stats line per period with checks, failures, missed jobs and lag", () =>
    Effect.gen(function*() {
      // The agent's clock (periods, lag, staleness) is the TestClock: it moves only when told to.
      yield* TestClock.setTime(Date.now())
      const lines: Array<Record<string, unknown>> = []
      const capture = Logger.make((options) => {
        if (Array.isArray(options.message) && options.message[0] === "probe stats") {
          lines.push({ ...logAnnotations(options) })
        }
      })
      const target = yield* httpServer((request, response) =>
        response.writeHead(request.url === "/down" ? 503 : 200).end()
      )
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      yield* Layer.buildWithScope(
        ProbeAgent.layer({ ...agentOptions, statsEvery: "10 seconds" }).pipe(
          Layer.provide(replaceDefaultLogger(capture))
        ),
        yield* Effect.scope
      )
      const now = yield* Clock.currentTimeMillis
      yield* queue.publishJobs([
        httpJob("a", `${target.url}/up`, now - 3_000),
        httpJob("b", `${target.url}/down`, now - 5_000),
        httpJob("c", `${target.url}/up`, now - 120_000)
      ])
      // Counted before it is reported: once the three reports are in, the period holds them.
      expect(yield* TestClock.withLive(readAll(ingest, 3))).toHaveLength(3)
      expect(lines).toEqual([])
      yield* TestClock.adjust("10 seconds")
      yield* eventually(Effect.sync(() => lines.length), (n) => n >= 1)
      expect(lines[0]).toMatchObject({
        checks: 2,
        failures: 1,
        missed: 1,
        lagAvgMs: 4_000,
        lagMaxMs: 5_000,
        region: "local",
        probe: "p1"
      })
      // The next period starts from nothing.
      yield* TestClock.adjust("10 seconds")
      yield* eventually(Effect.sync(() => lines.length), (n) => n >= 2)
      expect(lines[1]).toMatchObject({ checks: 0, failures: 0, missed: 0, lagAvgMs: 0, lagMaxMs: 0 })
      expect(lines).toHaveLength(2)
    }).pipe(Effect.scoped, Effect.provide(InProcessJobTransport.layer())))
})

describe("probe heartbeats", () => {
  it.effect("a heartbeat when the agent starts, then every period, with checks and lag over the last minute", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const startedAt = yield* Clock.currentTimeMillis
      const target = yield* httpServer((_request, response) => response.end())
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      /** The heartbeats that reached ingest since the last call. */
      const heartbeats = Effect.gen(function*() {
        expect(yield* TestClock.withLive(ingest.read(10, 50))).toEqual([])
        return (yield* ingest.takeHeartbeats()).map(({ heartbeat, region }) => ({ region, ...heartbeat }))
      })
      yield* Layer.buildWithScope(ProbeAgent.layer(agentOptions), yield* Effect.scope)
      // Sent before the agent took any job: the region is known from then on.
      const [first] = yield* heartbeats
      expect(first).toEqual({
        _tag: "ProbeHeartbeat",
        region: "local",
        name: "p1",
        version: packageVersion,
        startedAt,
        sentAt: startedAt,
        concurrency: 4,
        checksLastMinute: 0,
        lagMs: 0,
        inFlight: 0
      })

      yield* queue.publishJobs([
        httpJob("a", `${target.url}/`, startedAt - 3_000),
        httpJob("b", `${target.url}/`, startedAt - 5_000),
        httpJob("late", `${target.url}/`, startedAt - 120_000)
      ])
      expect(yield* TestClock.withLive(readAll(ingest, 3))).toHaveLength(3)
      yield* TestClock.adjust("10 seconds")
      const [second] = yield* eventually(heartbeats, (beats) => beats.length > 0)
      // Two checks run (the late job is a miss, not a check), 4 s late on average.
      expect(second).toMatchObject({ startedAt, sentAt: startedAt + 10_000, checksLastMinute: 2, lagMs: 4_000 })
      // A minute on, they are out of the window.
      yield* TestClock.adjust("60 seconds")
      const later = yield* eventually(heartbeats, (beats) => beats.length > 0)
      expect(later).toEqual([expect.objectContaining({ sentAt: startedAt + 70_000, checksLastMinute: 0, lagMs: 0 })])
    }).pipe(Effect.scoped, Effect.provide(InProcessJobTransport.layer())))
})

describe("in-process probe as the service composes it without REDIS_URL", () => {
  it.live("JobTransportLive is the in-process transport and InProcessProbeLive serves region local", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((_request, response) => response.end("ok"))
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      yield* queue.publishJobs([httpJob("svc", `${target.url}/`)])
      const [result] = (yield* readAll(ingest, 1)).map((d) => d.value)
      expect(result).toMatchObject({
        jobId: expect.stringMatching(/^svc:\d+$/),
        region: "local",
        probe: "in-process",
        ok: true,
        statusCode: 200
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(ProbeAgent.InProcessProbeLive.pipe(Layer.provideMerge(JobTransportLive))),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ PROBE_CONCURRENCY: "2" }))
    ))
})
