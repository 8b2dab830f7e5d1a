/**
 * Slow successes and silent regions, from stored results to what the API answers: a quorum of
 * regions succeeding slower than `degradedAboveMs` makes the monitor `degraded` and its
 * component `degraded` (no downtime); a region whose probes all went silent leaves
 * `reportingRegions` and the quorum until it is heard from again.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import type { ServiceUnavailable } from "../../src/domain/Errors.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotFrom, slotOf } from "../support/CheckResults.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const Stack = Layer.mergeAll(ResultIngest.layer, ProbeRegistry.layer).pipe(Layer.provideMerge(TestServer()))

/** A check of `region` due at `scheduledAt`: a success taking `durationMs`, or a 503. */
const check = (monitorId: string, region: string, scheduledAt: number, outcome: number | "fail") =>
  checkResult(monitorId, region, scheduledAt, outcome !== "fail", { durationMs: outcome === "fail" ? 30 : outcome })

/** A minute later (and after `before`, such as heartbeats), one check per region with the given outcome. */
const round = (
  monitorId: string,
  outcomes: Record<string, number | "fail">,
  before: Effect.Effect<void, ServiceUnavailable> = Effect.void
) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    yield* before
    const now = yield* Clock.currentTimeMillis
    yield* (yield* ResultIngest).ingest(
      Object.entries(outcomes).map(([region, outcome]) =>
        check(monitorId, region, slotOf(monitorId, now - 30), outcome)
      )
    )
  })

const downtimeIntervals = (monitorId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ count: number }>`select count(*)::int as count from monitor_downtime where monitor_id = ${monitorId}`
  )
    .pipe(Effect.map((rows) => rows[0]!.count))

it.layer(Stack)("degraded monitors and reporting regions", (it) => {
  it.effect("a quorum of slow regions degrades monitor and component, without downtime; down outranks it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: `Slow ${Math.random()}` } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: "https://example.com",
          regions: ["eu", "us", "ap"],
          degradedAboveMs: 500,
          failureThreshold: 1
        }
      })
      const get = Effect.map(client.monitors.list({ query: {} }), (all) => all.find((m) => m.id === monitor.id)!)
      const status = Effect.map(
        client.components.list({ query: {} }),
        (all) => all.find((c) => c.id === component.id)!.status
      )

      // One slow region of three: a majority is fast.
      yield* round(monitor.id, { eu: 900, us: 40, ap: 40 })
      expect(yield* get).toMatchObject({ state: "up", reportingRegions: ["ap", "eu", "us"] })
      yield* round(monitor.id, { eu: 900, us: 700, ap: 40 })
      expect((yield* get).state).toBe("degraded")
      expect(yield* status).toBe("degraded")
      expect(yield* downtimeIntervals(monitor.id)).toBe(0)

      // Down wins over degraded, and leaving down for degraded closes the interval.
      yield* round(monitor.id, { eu: "fail", us: "fail", ap: 900 })
      expect((yield* get).state).toBe("down")
      expect(yield* status).toBe("major_outage")
      yield* round(monitor.id, { eu: 900, us: 900, ap: 900 })
      expect((yield* get).state).toBe("degraded")
      expect(yield* status).toBe("degraded")
      const [interval] = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ endedAt: Date | null }>`select ended_at from monitor_downtime where monitor_id = ${monitor.id}`
      )
      expect(interval?.endedAt).toBeInstanceOf(Date)

      // A slower threshold: fast again, up and operational.
      yield* client.monitors.update({ params: { id: monitor.id }, payload: { degradedAboveMs: 1000 } })
      yield* round(monitor.id, { eu: 900, us: 900, ap: 900 })
      expect((yield* get).state).toBe("up")
      expect(yield* status).toBe("operational")
    }))

  it.effect("a region whose probes went silent is no data: out of reportingRegions and of the quorum", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const registry = yield* ProbeRegistry
      const component = yield* client.components.create({ payload: { name: `Silent ${Math.random()}` } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: "https://example.com",
          quorum: "all",
          failureThreshold: 1
        }
      })
      const get = Effect.map(client.monitors.list({ query: {} }), (all) => all.find((m) => m.id === monitor.id)!)
      const beat = (region: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          registry.recordHeartbeats([{
            region,
            heartbeat: new ProbeHeartbeat({
              name: `${region}-1`,
              version: "test",
              startedAt: now - 1000,
              sentAt: now,
              concurrency: 8,
              checksLastMinute: 1,
              lagMs: 0,
              inFlight: 0
            })
          }]))
      /** A minute later: a heartbeat from each region named, then its check. */
      const minute = (outcomes: Record<string, number | "fail">) =>
        round(monitor.id, outcomes, Effect.forEach(Object.keys(outcomes), beat, { discard: true }))

      // Align the clock so the first round's checks are due 1 s before it: silent-us's check then
      // stays within two intervals until the end, whatever slot the monitor's id hashes to.
      const firstSlot = slotFrom(monitor.id, (yield* Clock.currentTimeMillis) + 60_000)
      yield* TestClock.setTime(firstSlot - 59_000)

      yield* minute({ "silent-eu": 40, "silent-us": 40 })
      expect(yield* get).toMatchObject({ state: "up", reportingRegions: ["silent-eu", "silent-us"] })

      // silent-us goes quiet; silent-eu fails. With quorum "all", silent-eu is every region that counts.
      yield* minute({ "silent-eu": "fail" })
      expect(yield* get).toMatchObject({ state: "down", reportingRegions: ["silent-eu"] })

      // Heard from again, it counts again at once: the registry reads again for a region it held offline.
      yield* beat("silent-us")
      yield* TestClock.adjust("2 seconds")
      expect((yield* get).reportingRegions).toEqual(["silent-eu", "silent-us"])
    }))
})
