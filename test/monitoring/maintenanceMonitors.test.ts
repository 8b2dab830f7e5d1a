/**
 * Maintenance and the monitors: a window puts a component into maintenance whoever set its
 * status, and its end gives the status back together with who set it, so the monitors stay in
 * charge of an outage they found and an operator's status stays the operator's.
 */
import { expect, it } from "@effect/vitest"
import { Clock, DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { scheduleSoon } from "../support/Maintenance.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

// The maintenance clock is driven by hand (runDue) rather than run as a fiber: the rounds below
// move the TestClock a minute at a time.
const Stack = Layer.mergeAll(ResultIngest.layer, MaintenanceWindows.layer).pipe(Layer.provideMerge(TestServer()))

/** The result of the monitor's run at or just before `at` (ingest admits runs on its slots only). */
const result = (monitorId: string, at: number, ok: boolean) =>
  checkResult(monitorId, "local", slotOf(monitorId, at), ok)

/** A component with one http monitor (60 s interval, threshold 2). */
const monitored = Effect.gen(function*() {
  const client = yield* ApiClient
  const component = yield* client.components.create({ payload: { name: `Checked ${Math.random()}` } })
  const monitor = yield* client.monitors.create({
    payload: { componentId: component.id, type: "http", url: "https://example.com", failureThreshold: 2 }
  })
  const statusOf = Effect.map(
    client.components.list({ query: {} }),
    (list) => list.find((c) => c.id === component.id)?.status
  )
  return { client, component, monitor, statusOf }
})

/** One check a minute from now on, with the given outcomes. */
const rounds = (monitorId: string, outcomes: ReadonlyArray<boolean>) =>
  Effect.forEach(outcomes, (ok) =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 minute")
      const now = yield* Clock.currentTimeMillis
      yield* (yield* ResultIngest).ingest([result(monitorId, now - 30, ok)])
    }), { discard: true })

/** Moves the clock on by `minutes` and runs the maintenance transitions due then. */
const maintenanceTick = (minutes: number) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(`${minutes} minutes`)
    yield* (yield* MaintenanceWindows).runDue(yield* DateTime.now)
  })

it.layer(Stack)("maintenance and the monitors", (it) => {
  it.effect("after a window the monitors clear the outage they had found", () =>
    Effect.gen(function*() {
      const { component, monitor, statusOf } = yield* monitored
      yield* rounds(monitor.id, [false, false])
      expect(yield* statusOf).toBe("major_outage")

      yield* scheduleSoon("Fix", [component.id], 5)
      yield* maintenanceTick(1)
      expect(yield* statusOf).toBe("maintenance")
      // The fix works during the window; maintenance is not the monitors' to move.
      yield* rounds(monitor.id, [true])
      expect(yield* statusOf).toBe("maintenance")

      const mark = yield* outboxMark
      yield* maintenanceTick(3)
      expect(yield* statusOf).toBe("major_outage")
      // The outage is still the monitors' own: their next check clears it.
      yield* rounds(monitor.id, [true])
      expect(yield* statusOf).toBe("operational")
      const changes = (yield* outboxSince(mark)).filter((e) => e.event === "component.status_changed")
      expect(changes.map((e) => `${e.payload.previousStatus} -> ${e.payload.status}`)).toEqual([
        "maintenance -> major_outage",
        "major_outage -> operational"
      ])
    }))

  it.effect("overlapping windows hand the monitors' status on to the last one to end", () =>
    Effect.gen(function*() {
      const { client, component, monitor, statusOf } = yield* monitored
      yield* rounds(monitor.id, [false, false])
      const now = yield* DateTime.now
      for (const [start, end] of [[1, 4], [2, 6]] as const) {
        yield* client.maintenance.create({
          payload: {
            title: `Part ${start}`,
            scheduledStart: DateTime.add(now, { minutes: start }),
            scheduledEnd: DateTime.add(now, { minutes: end }),
            componentIds: [component.id]
          }
        })
      }
      yield* maintenanceTick(1)
      yield* maintenanceTick(1)
      yield* rounds(monitor.id, [true])
      yield* maintenanceTick(1) // the first ends at 4: the second still covers the component
      expect(yield* statusOf).toBe("maintenance")
      yield* maintenanceTick(2)
      expect(yield* statusOf).toBe("major_outage")
      yield* rounds(monitor.id, [true])
      expect(yield* statusOf).toBe("operational")
    }))

  it.effect("an operator's status comes back as the operator's: the monitors leave it alone", () =>
    Effect.gen(function*() {
      const { client, component, monitor, statusOf } = yield* monitored
      yield* client.components.setStatus({ params: { id: component.id }, payload: { status: "degraded" } })
      yield* scheduleSoon("Tune", [component.id], 3)
      yield* maintenanceTick(1)
      yield* maintenanceTick(2)
      expect(yield* statusOf).toBe("degraded")
      yield* rounds(monitor.id, [false, false, true, true])
      expect(yield* statusOf).toBe("degraded")
    }))

  it.effect("cancelling a running window also gives the monitors their status back", () =>
    Effect.gen(function*() {
      const { client, component, monitor, statusOf } = yield* monitored
      yield* rounds(monitor.id, [false, false])
      const now = yield* DateTime.now
      const window = yield* client.maintenance.create({
        payload: {
          title: "Abandoned",
          scheduledStart: now,
          scheduledEnd: DateTime.add(now, { hours: 1 }),
          componentIds: [component.id]
        }
      })
      yield* maintenanceTick(0)
      expect(yield* statusOf).toBe("maintenance")
      yield* client.maintenance.cancel({ params: { id: window.id }, query: {} })
      expect(yield* statusOf).toBe("major_outage")
      yield* rounds(monitor.id, [true])
      expect(yield* statusOf).toBe("operational")
    }))
})
