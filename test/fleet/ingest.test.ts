/** Results into state: dedupe, per-region streaks, region quorum, component status and its event. */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { CheckResult, jobIdOf } from "../../src/queue/CheckJob.js"
import { ResultIngest } from "../../src/services/ResultIngest.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const Stack = ResultIngest.Default.pipe(Layer.provideMerge(TestServer()))

const result = (monitorId: string, region: string, scheduledAt: number, ok: boolean) =>
  new CheckResult({
    jobId: jobIdOf(monitorId, scheduledAt),
    monitorId,
    region,
    probe: `${region}-1`,
    scheduledAt,
    checkedAt: scheduledAt + 20,
    ok,
    durationMs: 12.5,
    timings: { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: 10 },
    statusCode: ok ? 200 : 503,
    error: ok ? null : "expected status 200, got 503",
    sslDaysLeft: null
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

/** Feeds checks at the next `rounds` minutes for each region with the given outcome. */
const rounds = (monitorId: string, outcomes: Record<string, ReadonlyArray<boolean>>) =>
  Effect.gen(function*() {
    const ingest = yield* ResultIngest
    const count = Math.max(...Object.values(outcomes).map((o) => o.length))
    for (let i = 0; i < count; i++) {
      yield* TestClock.adjust("1 minute")
      const now = yield* TestClock.currentTimeMillis
      yield* ingest.ingest(
        Object.entries(outcomes).flatMap(([region, list]) => i < list.length ? [result(monitorId, region, now - 30, list[i]!)] : [])
      )
    }
  })

it.layer(Stack)("ingest", (it) => {
  it.effect("stores a result once however often it arrives", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      const ingest = yield* ResultIngest
      const now = yield* TestClock.currentTimeMillis
      const once = result(monitor.id, "eu", now, true)
      yield* ingest.ingest([once, once])
      yield* ingest.ingest([once])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ count: number }>`select count(*)::int as count from check_results where monitor_id = ${monitor.id}`
      expect(rows[0]!.count).toBe(1)
    }))

  it.effect("one failing region of three keeps the monitor up; two take it down, with the event", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      yield* rounds(monitor.id, { a: [true, false, false, false], b: [true, true, true, true], c: [true, true, true, true] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("operational")

      const mark = yield* outboxMark
      yield* rounds(monitor.id, { a: [false, false], b: [false, false], c: [true, true] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("major_outage")
      const events = (yield* outboxSince(mark)).filter((e) => e.event === "component.status_changed")
      expect(events.map((e) => e.payload)).toEqual([
        { id: component.id, name: component.name, previousStatus: "operational", status: "major_outage" }
      ])
      expect((yield* client.status.summary()).status).toBe("major_outage")

      // Back on a majority of successes; the down interval is closed.
      yield* rounds(monitor.id, { a: [true], b: [true], c: [true] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("operational")
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
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("partial_outage")
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("major_outage")
    }))

  it.effect("leaves alone a status an operator set by hand", () =>
    Effect.gen(function*() {
      const { client, component, monitor } = yield* monitored
      yield* rounds(monitor.id, { local: [false, false] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("major_outage")
      yield* client.components.setStatus({ path: { id: component.id }, payload: { status: "degraded" } })
      yield* rounds(monitor.id, { local: [true, true] })
      expect((yield* client.components.list()).find((c) => c.id === component.id)?.status).toBe("degraded")
    }))

  it.effect("ignores results of monitors deleted meanwhile", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored
      yield* sendJson("DELETE", `/api/v1/admin/monitors/${monitor.id}`)
      yield* rounds(monitor.id, { local: [false, false] })
    }))
})
