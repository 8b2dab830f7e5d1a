/**
 * The fleet must not rewrite history (issue 37). A probe signed in to Redis as its region's ACL
 * user (the rules docs/operations.md gives) sends, on its own results stream, failures of a
 * monitor created a minute before: one per slot over the past 7 days, slots of 1970, a run a day
 * ahead, and a flood of copies of one run. Through the real ingest path (the ingest role on the
 * Redis transport, on the suite's TestClock), only the runs the scheduler could have published
 * since the monitor exists are stored; every other report is refused, counted by region and
 * reason, and logged in one line per probe a minute, never per report. Downtime, uptime and the
 * automatic incident stay as they were. Honest late reports of an older monitor, up to the bound
 * of docs/monitor-fleet.md ("Result admission") from when Redis took them in, are still stored;
 * one a slot beyond it is not.
 */
import { randomUUID } from "node:crypto"

import { expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Logger, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import type { Redis } from "ioredis"

import { CheckResult, jobIdOf, MissedCheck, type ProbeReport } from "../../src/domain/CheckJob.js"
import { reportsRefused } from "../../src/observability/Metrics.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { probeAclRules } from "../../src/queue/ProbeAcl.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { Uptime } from "../../src/services/monitoring/Uptime.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { checkResult, slotFrom, slotOf } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { addLogger, logAnnotations } from "../support/Logs.js"
import { aclUser, redisPrefix, redisUrl } from "../support/Redis.js"
import { storedRuns } from "../support/StoredRuns.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const minute = 60_000
const day = 24 * 60 * minute
/**
 * The latest an honest result of a 60 s monitor may arrive, with the default claim time (30 s)
 * and clock skew (60 s): 3 intervals + 2 claim times + 2 skews + 60 s (docs/monitor-fleet.md).
 */
const lateBound = 3 * minute + 2 * 30_000 + 2 * minute + minute
/** How far before its creation a monitor's runs are admitted: the clock skew. */
const skew = minute

/** The lines of the refusal log. */
const refusalLines: Array<Record<string, unknown>> = []
const capture = Logger.make((options) => {
  const text = Array.isArray(options.message) ? options.message[0] : options.message
  if (typeof text === "string" && text.includes("refused")) {
    refusalLines.push({ ...logAnnotations(options) })
  }
})

class RawRedis
  extends Context.Service<RawRedis, { readonly prefix: string; readonly redis: Redis }>()("test/ForgedRawRedis")
{}

const Prefixed = Layer.unwrap(
  Effect.map(
    redisPrefix,
    ({ prefix, redis }) =>
      Layer.merge(RedisJobTransport.layer({ url: redisUrl, prefix }), Layer.succeed(RawRedis, { prefix, redis }))
  )
)

const Stack = IngestConsumer.pipe(
  Layer.provideMerge(Uptime.layer),
  Layer.provideMerge(Prefixed),
  Layer.provideMerge(TestServer()),
  Layer.provide(addLogger(capture))
)

/** Whether ingest has read and acknowledged everything on `region`'s results stream. */
const consumed = (region: string) =>
  Effect.gen(function*() {
    const { prefix, redis } = yield* RawRedis
    return yield* Effect.promise(async () => {
      const groups = await redis.xinfo("GROUPS", `${prefix}results:${region}`).catch(() => []) as Array<
        Array<unknown>
      >
      const ingest = groups.map((fields) => new Map(fields.flatMap((v, i) => i % 2 === 0 ? [[v, fields[i + 1]]] : [])))
        .find((group) => group.get("name") === "ingest")
      return ingest !== undefined && ingest.get("lag") === 0 && ingest.get("pending") === 0
    })
  })

/** The refusals counted for `region` and `reason`. */
const refusedCount = (region: string, reason: string) =>
  Effect.map(
    Metric.value(reportsRefused.pipe(Metric.withAttributes({ region, reason }))),
    (state) => state.count
  )

const failing = (monitorId: string, region: string, at: number): ProbeReport =>
  CheckResult.make({ ...checkResult(monitorId, region, at, false), probe: "forger-1" })

it.layer(Stack, { timeout: "120 seconds" })("forged results", (it) => {
  it.effect("a region's probe cannot rewrite a monitor's past, flood it, or date runs before it existed", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const { prefix, redis: admin } = yield* RawRedis
      const forgerRegion = `forged${randomUUID().slice(0, 8)}`
      const honestRegion = `honest${randomUUID().slice(0, 8)}`

      // An older monitor, for the honest late reports, then the target: created a minute ago,
      // opening a published incident on an outage, failing after five failures in a row.
      const older = yield* client.monitors.create({
        payload: {
          componentId: (yield* client.components.create({ payload: { name: "Older" } })).id,
          type: "http",
          url: "https://older.example.test"
        }
      })
      // Older than the bound by any clock, the machine's included.
      yield* sql`update monitors set created_at = created_at - interval '1 hour' where id = ${older.id}`
      yield* TestClock.adjust("10 minutes")
      const component = yield* client.components.create({ payload: { name: "Checkout" } })
      // The server's clock is the suite's TestClock, which stands still until adjusted.
      const createdAt = yield* Clock.currentTimeMillis
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: "https://checkout.example.test",
          failureThreshold: 5,
          incidentPolicy: "publish"
        }
      })
      yield* TestClock.adjust("1 minute")
      const now = yield* Clock.currentTimeMillis
      const latest = slotOf(monitor.id, now)

      // The forged reports, on the forger's own results stream, as its ACL user.
      const week = Array.from({ length: 10_081 }, (_, i) => latest - i * minute)
      const of1970 = Array.from({ length: 100 }, (_, i) => slotOf(monitor.id, (i + 1) * minute))
      const ahead = latest + day
      const flood = Array.from({ length: 1_000 }, () => failing(monitor.id, forgerRegion, latest))
      const user = yield* aclUser(admin, `probe-${forgerRegion}`, probeAclRules(prefix, forgerRegion))
      const asProbe = yield* RedisJobTransport.make({ url: user.url, prefix, readyCheck: false })
      yield* asProbe.publishResults([
        ...week.map((at) => failing(monitor.id, forgerRegion, at)),
        ...of1970.map((at) => failing(monitor.id, forgerRegion, at)),
        failing(monitor.id, forgerRegion, ahead),
        ...flood
      ])

      // Honest late reports of the older monitor from another region: the oldest run within the
      // bound is stored, the run before it is refused; a miss recorded late is stored too. Their
      // age is judged when Redis took them in (the machine's clock, 11 minutes behind the suite's
      // TestClock here, as if they had waited that long for ingest).
      // Redis stamps them a few ms after `arrival`: the oldest admitted slot is kept 5 s clear of
      // the bound's edge, waiting (real time, a few seconds at most) for the next slot if need be.
      const clearance = (at: number) => slotFrom(older.id, at - lateBound) - (at - lateBound)
      if (clearance(Date.now()) < 5_000) {
        yield* Effect.promise(() => new Promise((resume) => setTimeout(resume, clearance(Date.now()) + 1_000)))
      }
      const arrival = Date.now()
      const oldestAdmitted = slotFrom(older.id, arrival - lateBound)
      const beyond = oldestAdmitted - minute
      const lateMiss = new MissedCheck({
        jobId: jobIdOf(older.id, beyond - minute),
        monitorId: older.id,
        region: honestRegion,
        probe: `${honestRegion}-1`,
        scheduledAt: beyond - minute,
        recordedAt: now,
        reason: "late"
      })
      yield* (yield* JobTransport).publishResults([
        checkResult(older.id, honestRegion, oldestAdmitted, true),
        checkResult(older.id, honestRegion, beyond, true),
        lateMiss
      ])
      yield* eventually(
        Effect.all([consumed(forgerRegion), consumed(honestRegion)]),
        ([forged, honest]) => forged && honest,
        60_000
      )

      // Stored: only the runs from the slot in progress at creation less the skew on, which the
      // scheduler may have published (three at most, too few for five failures in a row).
      const first = slotOf(monitor.id, createdAt - skew)
      const admitted = week.filter((at) => at >= first).sort((a, b) => a - b)
      expect(yield* storedRuns([monitor.id])).toEqual(
        admitted.map((at) => ({ jobId: jobIdOf(monitor.id, at), region: forgerRegion, results: 1, misses: 0 }))
      )
      expect(admitted.length).toBeGreaterThan(0)
      expect(admitted.length).toBeLessThanOrEqual(3)
      // Nothing moved: no downtime, no outage, no incident, full uptime.
      expect(yield* sql`select * from monitor_downtime where monitor_id = ${monitor.id}`).toEqual([])
      const [listed] = (yield* client.monitors.list({ query: {} })).filter((m) => m.id === monitor.id)
      expect(listed?.state).toBe("unknown")
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
      expect(yield* sql`select id from incidents`).toEqual([])
      const uptime = yield* Uptime
      yield* uptime.refresh
      for (const period of ["24h", "7d"] as const) {
        const records = yield* uptime.read(period)
        expect(records.find((r) => r.componentId === component.id)?.uptimePercentage, period).toBe(100)
      }

      // The honest reports within the bound are stored; the one a slot beyond it is refused.
      expect(yield* storedRuns([older.id])).toEqual([
        { jobId: lateMiss.jobId, region: honestRegion, results: 0, misses: 1 },
        { jobId: jobIdOf(older.id, oldestAdmitted), region: honestRegion, results: 1, misses: 0 }
      ])

      // Counted by region and reason.
      const beforeCreation = week.length - admitted.length + of1970.length
      expect(yield* refusedCount(forgerRegion, "before_creation")).toBe(beforeCreation)
      expect(yield* refusedCount(forgerRegion, "scheduled_in_future")).toBe(1)
      expect(yield* refusedCount(forgerRegion, "duplicate")).toBe(flood.length)
      expect(yield* refusedCount(honestRegion, "too_late")).toBe(1)

      // Logged once a minute per probe, with the counts, never per report or per batch.
      const linesOf = (region: string) => refusalLines.filter((line) => line.region === region)
      expect(linesOf(forgerRegion)).toEqual([])
      yield* TestClock.adjust("1 minute")
      const lines = yield* eventually(
        Effect.sync(() => linesOf(forgerRegion)),
        (found) => found.length > 0,
        10_000
      )
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ region: forgerRegion, probe: "forger-1", total: beforeCreation + 1 + 1_000 })
      expect(JSON.parse(String(lines[0]!.refused))).toEqual({
        before_creation: beforeCreation,
        scheduled_in_future: 1,
        duplicate: flood.length
      })
      expect(linesOf(honestRegion)).toEqual([
        expect.objectContaining({ probe: `${honestRegion}-1`, total: 1, refused: JSON.stringify({ too_late: 1 }) })
      ])
    }))
})
