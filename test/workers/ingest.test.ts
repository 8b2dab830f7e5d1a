/**
 * Results into state: dedupe, per-region streaks, region quorum, component status and its
 * event; misses stored beside them, one result or one miss per (job, region).
 */
import { expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { CheckResult, jobIdOf, MissedCheck } from "../../src/domain/CheckJob.js"
import { CheckResultsRepo } from "../../src/persistence/CheckResultsRepo.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { deleteOldChecks } from "../../src/workers/IngestConsumer.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { storedRuns } from "../support/StoredRuns.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const Stack = ResultIngest.layer.pipe(Layer.provideMerge(TestServer()))

const result = checkResult

/** The run of `monitorId` due at `scheduledAt`, given up by a probe of `region` one interval late. */
const miss = (monitorId: string, region: string, scheduledAt: number) =>
  new MissedCheck({
    jobId: jobIdOf(monitorId, scheduledAt),
    monitorId,
    region,
    probe: `${region}-2`,
    scheduledAt,
    recordedAt: scheduledAt + 61_000,
    reason: "late"
  })

/** A component with one http monitor (60 s interval, threshold 2). */
const monitored = Effect.gen(function*() {
  const client = yield* ApiClient
  const component = yield* client.components.create({ payload: { name: `Checked ${Math.random()}` } })
  const monitor = yield* client.monitors.create({
    payload: { componentId: component.id, type: "http", url: "https://example.com", failureThreshold: 2 }
  })
  return { client, component, monitor }
})

/** Feeds checks of the runs of the next `rounds` minutes for each region with the given outcome. */
const rounds = (monitorId: string, outcomes: Record<string, ReadonlyArray<boolean>>) =>
  Effect.gen(function*() {
    const ingest = yield* ResultIngest
    const count = Math.max(...Object.values(outcomes).map((o) => o.length))
    for (let i = 0; i < count; i++) {
      yield* TestClock.adjust("1 minute")
      const now = yield* Clock.currentTimeMillis
      yield* ingest.ingest(
        Object.entries(outcomes).flatMap(([region, list]) =>
          i < list.length ? [result(monitorId, region, slotOf(monitorId, now), list[i]!)] : []
        )
      )
    }
  })

it.layer(Stack)("ingest", (it) => {
  it.effect("stores a result once however often it arrives", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      const ingest = yield* ResultIngest
      const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      const once = result(monitor.id, "eu", now, true)
      yield* ingest.ingest([once, once])
      yield* ingest.ingest([once])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<
        { count: number }
      >`select count(*)::int as count from check_results where monitor_id = ${monitor.id}`
      expect(rows[0]!.count).toBe(1)
    }))

  it.effect("stores a miss once however often it arrives; it moves no state", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      const ingest = yield* ResultIngest
      const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      const missed = miss(monitor.id, "eu", now)
      yield* ingest.ingest([missed, missed])
      yield* ingest.ingest([missed])
      expect(yield* storedRuns([monitor.id])).toEqual([{ jobId: missed.jobId, region: "eu", results: 0, misses: 1 }])
      const sql = yield* SqlClient.SqlClient
      const [row] =
        yield* sql`select monitor_id, probe, scheduled_at, recorded_at, reason from missed_checks where job_id = ${missed.jobId}`
      expect(row).toEqual({
        monitorId: monitor.id,
        probe: "eu-2",
        scheduledAt: new Date(now),
        recordedAt: new Date(now + 61_000),
        reason: "late"
      })
      // No data: neither the region's streak, nor the monitor's state, nor its component moved.
      const [listed] = (yield* client.monitors.list({ query: {} })).filter((m) => m.id === monitor.id)
      expect(listed).toMatchObject({ state: "unknown", regionStates: [] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
    }))

  it.effect("a result replaces the miss of its run; a miss after a result, or with it, is not stored", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      const ingest = yield* ResultIngest
      // Past runs, since the monitor exists: ingest refuses runs dated ahead of its clock (beyond the skew).
      yield* TestClock.adjust("5 minutes")
      const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      const [late, early, together, reversed] = [now - 240_000, now - 180_000, now - 120_000, now - 60_000]
      // A slow probe ran it after all: its result comes after the miss a sibling recorded.
      yield* ingest.ingest([miss(monitor.id, "eu", late)])
      yield* ingest.ingest([result(monitor.id, "eu", late, true)])
      // A probe died after publishing the result; the sibling that claimed the job found it stale.
      yield* ingest.ingest([result(monitor.id, "eu", early, true)])
      yield* ingest.ingest([miss(monitor.id, "eu", early), miss(monitor.id, "eu", early)])
      // Both in one batch, in either order.
      yield* ingest.ingest([result(monitor.id, "eu", together, true), miss(monitor.id, "eu", together)])
      yield* ingest.ingest([miss(monitor.id, "eu", reversed), result(monitor.id, "eu", reversed, true)])
      // Another region's miss of the same run is its own.
      yield* ingest.ingest([miss(monitor.id, "us", late)])
      expect(yield* storedRuns([monitor.id])).toEqual([
        { jobId: jobIdOf(monitor.id, late), region: "eu", results: 1, misses: 0 },
        { jobId: jobIdOf(monitor.id, late), region: "us", results: 0, misses: 1 },
        { jobId: jobIdOf(monitor.id, early), region: "eu", results: 1, misses: 0 },
        { jobId: jobIdOf(monitor.id, together), region: "eu", results: 1, misses: 0 },
        { jobId: jobIdOf(monitor.id, reversed), region: "eu", results: 1, misses: 0 }
      ].sort((a, b) => a.jobId.localeCompare(b.jobId) || a.region.localeCompare(b.region)))
    }))

  it.effect("ingest instances storing a result and a miss of one run at once keep the result alone", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      const ingest = yield* ResultIngest
      // Five rounds of the six runs before now: past runs that ingest still admits.
      for (let round = 0; round < 5; round++) {
        yield* TestClock.adjust("6 minutes")
        const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
        const runs = Array.from({ length: 6 }, (_, i) => now - i * 60_000)
        yield* Effect.forEach(runs, (at) =>
          ingest.ingest([miss(monitor.id, "eu", at)]).pipe(
            Effect.zip(ingest.ingest([result(monitor.id, "eu", at, true)]), { concurrent: true })
          ), { concurrency: 4 })
      }
      const stored = yield* storedRuns([monitor.id])
      expect(stored).toHaveLength(30)
      expect(stored.every((run) => run.results === 1 && run.misses === 0)).toBe(true)
    }))

  it.effect("lists misses among the results, newest first", () =>
    Effect.gen(function*() {
      const { client, monitor } = yield* monitored
      const ingest = yield* ResultIngest
      const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      yield* ingest.ingest([result(monitor.id, "eu", now, false), miss(monitor.id, "us", now)])
      yield* ingest.ingest([miss(monitor.id, "eu", now + 60_000), result(monitor.id, "us", now + 60_000, true)])
      const runs = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(runs.map((run) => [run.outcome, run.region])).toEqual([["missed", "eu"], ["checked", "us"], [
        "checked",
        "eu"
      ], ["missed", "us"]])
      expect(runs[0]).toMatchObject({ outcome: "missed", probe: "eu-2", reason: "late" })
      expect(runs[1]).toMatchObject({ outcome: "checked", ok: true, statusCode: 200 })
      expect(yield* client.monitors.results({ params: { id: monitor.id }, query: { limit: 3 } })).toEqual(
        runs.slice(0, 3)
      )
    }))

  it.effect("misses are deleted with the results past RESULTS_RETENTION_DAYS", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      const ingest = yield* ResultIngest
      // Stored when they were fresh, eight days before the others.
      const old = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      yield* ingest.ingest([result(monitor.id, "eu", old, true), miss(monitor.id, "us", old)])
      yield* TestClock.adjust(Duration.days(8))
      const now = slotOf(monitor.id, yield* Clock.currentTimeMillis)
      yield* ingest.ingest([result(monitor.id, "eu", now, true), miss(monitor.id, "us", now)])
      expect((yield* storedRuns([monitor.id])).map((run) => run.jobId)).toContain(jobIdOf(monitor.id, old))
      yield* deleteOldChecks.pipe(Effect.provide(CheckResultsRepo.layer))
      expect(yield* storedRuns([monitor.id])).toEqual([
        { jobId: jobIdOf(monitor.id, now), region: "eu", results: 1, misses: 0 },
        { jobId: jobIdOf(monitor.id, now), region: "us", results: 0, misses: 1 }
      ])
    }))

  it.effect("one failing region of three keeps the monitor up; two take it down, with the event", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      yield* rounds(monitor.id, {
        a: [true, false, false, false],
        b: [true, true, true, true],
        c: [true, true, true, true]
      })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )

      const mark = yield* outboxMark
      yield* rounds(monitor.id, { a: [false, false], b: [false, false], c: [true, true] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "major_outage"
      )
      const events = (yield* outboxSince(mark)).filter((e) => e.event === "component.status_changed")
      expect(events.map((e) => e.payload)).toEqual([
        { id: component.id, name: component.name, previousStatus: "operational", status: "major_outage" }
      ])
      expect((yield* client.status.summary()).status).toBe("major_outage")

      // Back on a majority of successes; the down interval is closed.
      yield* rounds(monitor.id, { a: [true], b: [true], c: [true] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
      const sql = yield* SqlClient.SqlClient
      const intervals = yield* sql<{ open: boolean }>`
        select ended_at is null as open from monitor_downtime where monitor_id = ${monitor.id}`
      expect(intervals).toEqual([{ open: false }])
    }))

  it.effect("all monitors down is a major outage, some a partial one", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      const second = yield* client.monitors.create({
        payload: { componentId: component.id, type: "tcp", url: "db.example:5432", failureThreshold: 1 }
      })
      yield* rounds(second.id, { local: [false] })
      yield* rounds(monitor.id, { local: [true] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "partial_outage"
      )
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "major_outage"
      )
    }))

  it.effect("a component left out of line by an unfinished move is moved by the next batch, without a transition", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "major_outage"
      )
      // As if the process died between the batch's commit and the component's move.
      const sql = yield* SqlClient.SqlClient
      yield* sql`update components set status = 'operational' where id = ${component.id}`
      yield* rounds(monitor.id, { local: [false] })
      const [state] = yield* sql<{ state: string }>`select state from monitors where id = ${monitor.id}`
      expect(state).toEqual({ state: "down" })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "major_outage"
      )
    }))

  it.effect("leaves alone a status an operator set by hand", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "major_outage"
      )
      yield* client.components.setStatus({ params: { id: component.id }, payload: { status: "degraded" } })
      yield* rounds(monitor.id, { local: [true, true] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe("degraded")
    }))

  it.effect("refuses reports of runs that were not scheduled: nothing stored, no state moved", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      const limited = yield* client.monitors.create({
        payload: { componentId: component.id, type: "http", url: "https://example.org", regions: ["eu", "us"] }
      })
      const ingest = yield* ResultIngest
      const mark = yield* outboxMark
      const clock = yield* Clock.currentTimeMillis
      const now = slotOf(monitor.id, clock)
      const limitedNow = slotOf(limited.id, clock)
      const century = 100 * 525_960 * 60_000
      // Failures enough (threshold 2) to take the monitors down, were any of them accepted.
      for (const minutesAgo of [1, 0]) {
        const at = now - minutesAgo * 60_000
        const limitedAt = limitedNow - minutesAgo * 60_000
        yield* ingest.ingest([
          // Dated a century ahead.
          result(monitor.id, "eu", at + century, false),
          // A job id of another run than the one reported.
          CheckResult.make({ ...result(monitor.id, "eu", at, false), jobId: jobIdOf(monitor.id, at - 60_000) }),
          // A run the scheduler never published: a millisecond off the monitor's slots.
          result(monitor.id, "eu", at + 1, false),
          miss(monitor.id, "us", at - 1),
          // A monitor that does not exist.
          result("no-such-monitor", "eu", at, false),
          // A region the monitor does not ask for.
          result(limited.id, "ap", limitedAt, false),
          miss(limited.id, "ap", limitedAt)
        ])
      }
      expect(yield* storedRuns([monitor.id, limited.id, "no-such-monitor"])).toEqual([])
      expect(
        (yield* client.monitors.list({ query: {} })).filter((m) => [monitor.id, limited.id].includes(m.id)).map((m) =>
          m.state
        )
      ).toEqual(["unknown", "unknown"])
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
      expect(yield* outboxSince(mark)).toEqual([])
      // A slot within the clock skew, from a region it asks for: accepted.
      yield* ingest.ingest([result(limited.id, "us", limitedNow + 60_000, false)])
      expect(yield* storedRuns([limited.id])).toEqual([
        { jobId: jobIdOf(limited.id, limitedNow + 60_000), region: "us", results: 1, misses: 0 }
      ])
    }))

  it.effect("ignores results of monitors deleted meanwhile", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      expect((yield* sendJson("DELETE", `/api/v1/admin/monitors/${monitor.id}`)).status).toBe(204)
      const mark = yield* outboxMark
      // Two failures in a row: enough (threshold 2) to take a monitor, and its component, down.
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
      expect(yield* outboxSince(mark)).toEqual([])
      expect((yield* client.monitors.list({ query: {} })).map((m) => m.id)).not.toContain(monitor.id)
    }))
})
