import { expect, it } from "@effect/vitest"
import { Array as Arr, Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Uptime } from "../../src/services/monitoring/Uptime.js"
import { UptimeAggregator } from "../../src/workers/UptimeAggregator.js"
import { asleepUntil, eventually } from "../support/Eventually.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const minute = 60_000
const hour = 60 * minute

/** The server plus the aggregation fiber, on the suite's TestClock. */
const Stack = UptimeAggregator.pipe(Layer.provideMerge(TestServer()))

/** Gives a component a made-up past: created two days ago, with the given status changes. */
const rewriteHistory = (componentId: string, now: number, changes: ReadonlyArray<readonly [number, string]>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const created = new Date(now - 48 * hour)
    yield* sql`update components set created_at = ${created} where id = ${componentId}`
    yield* sql`delete from component_status_history where component_id = ${componentId}`
    yield* sql`insert into component_status_history ${
      sql.insert(Arr.map(Arr.prepend(changes, [created.getTime(), "operational"] as const), ([at, status]) => ({
        componentId,
        status,
        startedAt: new Date(at)
      })))
    }`
  })

it.layer(Stack)("uptime", (it) => {
  it.effect("records every public component, 100 % without downtime; period is validated", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const shown = yield* client.components.create({ payload: { name: "Shown" } })
      yield* client.components.create({ payload: { name: "Hidden", isPublic: false } })
      yield* TestClock.adjust("1 minute")

      const records = yield* client.status.uptime({ query: {} })
      expect(records).toEqual([{ componentId: shown.id, componentName: "Shown", uptimePercentage: 100, period: "90d" }])
      for (const period of ["24h", "7d", "30d", "90d"] as const) {
        expect((yield* client.status.uptime({ query: { period } }))[0]?.period).toBe(period)
      }
      for (const bad of ["1h", "90D", "", "90d&period=7d"]) {
        const response = yield* sendJson("GET", `/api/v1/status/uptime?period=${bad}`)
        expect(response.status, bad).toBe(400)
      }
      yield* client.components.remove({ params: { id: shown.id } })
    }))

  it.effect("weighs a past outage over the period, from rollups only", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Checkout" } })
      const now = yield* Clock.currentTimeMillis
      // A 36-minute major outage and a 60-minute partial one, ending three hours ago.
      yield* rewriteHistory(component.id, now, [
        [now - 5 * hour, "major_outage"],
        [now - 5 * hour + 36 * minute, "partial_outage"],
        [now - 3 * hour - 24 * minute, "operational"]
      ])
      const downtime = 36 * 60 + 0.3 * 60 * 60
      const uptime = (period: "24h" | "7d") =>
        Effect.map(client.status.uptime({ query: { period } }), (records) =>
          records.find((r) => r.componentId === component.id)!)
      yield* asleepUntil(now + minute)
      yield* TestClock.adjust("1 minute") // the aggregation fiber runs
      yield* eventually(uptime("7d"), (record) =>
        record.uptimePercentage < 100)

      const day = yield* uptime("24h")
      // 24 hourly buckets: 23 whole hours plus the current one.
      expect(day.uptimePercentage).toBeLessThan(100 * (1 - downtime / (24 * 3600)) + 0.01)
      expect(day.uptimePercentage).toBeGreaterThan(100 * (1 - downtime / (23 * 3600)) - 0.01)
      const week = yield* uptime("7d")
      // Measured from creation, two days ago.
      expect(week.uptimePercentage).toBeCloseTo(100 * (1 - downtime / (48 * 3600 + 60)), 2)

      // Reading uses the rollups: history and intervals can go without changing the answer.
      const sql = yield* SqlClient.SqlClient
      yield* sql`delete from component_status_history where component_id = ${component.id}`
      expect((yield* uptime("24h")).uptimePercentage).toBe(day.uptimePercentage)
    }))

  it.effect("shows a new outage within two minutes", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Search" } })
      const now = yield* Clock.currentTimeMillis
      yield* rewriteHistory(component.id, now, [[now, "major_outage"]])
      yield* asleepUntil(now + minute)
      yield* TestClock.adjust("2 minutes")
      const record = yield* eventually(
        Effect.map(client.status.uptime({ query: { period: "24h" } }), (records) =>
          records.find((r) => r.componentId === component.id)!),
        (found) =>
          found.uptimePercentage < 100
      )
      expect(record.uptimePercentage).toBeLessThan(100)
    }))
})

it.layer(Uptime.layer.pipe(Layer.provideMerge(TestServer())))("uptime refreshes", (it) => {
  it.effect("finish an hour once after it closes, then leave it alone unless a change is dated in it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const uptime = yield* Uptime
      const component = yield* client.components.create({ payload: { name: "Ledger" } })
      yield* rewriteHistory(component.id, yield* Clock.currentTimeMillis, [])
      // The next hour's start at least a minute ahead: the test moves the clock to a minute before it.
      const closing = Math.ceil(((yield* Clock.currentTimeMillis) + minute) / hour) * hour
      const observed = (bucketStart: number) =>
        Effect.map(
          sql<{ observedSeconds: number }>`
            select observed_seconds::float8 as observed_seconds from uptime_rollups
            where granularity = 'hour' and component_id = ${component.id} and bucket_start = ${new Date(bucketStart)}`,
          (rows) => rows[0]?.observedSeconds
        )
      const refreshAt = (at: number) =>
        Effect.gen(function*() {
          yield* TestClock.adjust(at - (yield* Clock.currentTimeMillis))
          yield* uptime.refresh
        })

      yield* refreshAt(closing - minute)
      expect(yield* observed(closing - hour)).toBe(3540)
      // The first refresh after the hour closes finishes it.
      yield* refreshAt(closing + minute)
      expect(yield* observed(closing - hour)).toBe(3600)

      // A marker in the closed hour's row: later refreshes leave it...
      yield* sql`
        update uptime_rollups set observed_seconds = 1234
        where granularity = 'hour' and component_id = ${component.id} and bucket_start = ${new Date(closing - hour)}`
      yield* refreshAt(closing + 2 * minute)
      expect(yield* observed(closing)).toBe(120)
      expect(yield* observed(closing - hour)).toBe(1234)

      // ...until a change dated in it marks it for recomputation.
      yield* sql`
        insert into component_status_history (component_id, status, started_at)
        values (${component.id}, 'operational', ${new Date(closing - 30 * minute)})`
      yield* refreshAt(closing + 3 * minute)
      expect(yield* observed(closing - hour)).toBe(3600)
    }))
})
