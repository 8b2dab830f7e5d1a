/**
 * What automation does on its own is audited too, as `system` with the automation's name: a
 * monitor moving its component's status (on a transition only, not on every check), the
 * automatic incidents' steps, and the maintenance clock starting and ending windows.
 */
import { expect, it } from "@effect/vitest"
import { Clock, DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import { IncidentAutomation } from "../../src/services/monitoring/IncidentAutomation.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { sendJson, TestServer } from "../support/TestServer.js"
import { entriesSince, newestId } from "./AuditLog.js"

const Stack = Layer.mergeAll(ResultIngest.layer, IncidentAutomation.layer, MaintenanceWindows.layer).pipe(
  Layer.provideMerge(TestServer())
)

const regions = ["ap-south", "eu-west", "us-east"] as const

/** One minute later, one check from each region; `failing` regions fail. */
const round = (monitorId: string, failing: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    const scheduledAt = slotOf(monitorId, (yield* Clock.currentTimeMillis) - 30)
    yield* (yield* ResultIngest).ingest(
      regions.map((region) => checkResult(monitorId, region, scheduledAt, !failing.includes(region)))
    )
  })

const monitored = (name: string, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const component = (yield* sendJson("POST", "/api/v1/admin/components", { name })).body
    const monitor = yield* sendJson("POST", "/api/v1/admin/monitors", {
      componentId: component.id,
      type: "http",
      url: "http://127.0.0.1:9/health",
      failureThreshold: 1,
      regions: [...regions],
      ...fields
    })
    expect(monitor.status).toBe(201)
    return { componentId: component.id as string, monitorId: monitor.body.id as string }
  })

const byMonitors = { type: "system", id: null, name: "monitors" }
const byAutomation = { type: "system", id: null, name: "incident-automation" }

it.layer(Stack)("audit log of automation", (it) => {
  it.effect("a monitor moving its component's status is one entry per move, none while nothing moves", () =>
    Effect.gen(function*() {
      const { componentId, monitorId } = yield* monitored("Checkout")
      yield* round(monitorId, [])
      const before = yield* newestId

      // Down by quorum: the component moves, in the ingest's commit.
      yield* round(monitorId, ["eu-west", "us-east"])
      const down = yield* entriesSince(before)
      expect(down).toEqual([
        expect.objectContaining({
          operation: "components.setStatusByMonitor",
          actor: byMonitors,
          clientAddress: null,
          target: { type: "component", id: componentId, name: "Checkout" },
          changes: { status: { before: "operational", after: "major_outage" } }
        })
      ])

      // Still down, and checks that pass where they passed: nothing moves, nothing is written.
      yield* round(monitorId, ["eu-west", "us-east"])
      yield* round(monitorId, [...regions])
      expect(yield* entriesSince(down[0]!.id)).toEqual([])

      yield* round(monitorId, [])
      const up = yield* entriesSince(down[0]!.id)
      expect(up.map((entry) => [entry.operation, entry.actor.name, entry.changes])).toEqual([
        ["components.setStatusByMonitor", "monitors", { status: { before: "major_outage", after: "operational" } }]
      ])
    }))

  it.effect("the automatic incidents' steps are the automation's entries, one per step", () =>
    Effect.gen(function*() {
      const { componentId, monitorId } = yield* monitored("Search", {
        incidentPolicy: "publish",
        resolveAfterSeconds: 0
      })
      yield* round(monitorId, [])
      const before = yield* newestId

      yield* round(monitorId, [...regions])
      const opened = yield* entriesSince(before)
      expect(opened.map((entry) => [entry.operation, entry.actor])).toEqual([
        ["components.setStatusByMonitor", byMonitors],
        ["incidents.openAutomatically", byAutomation]
      ])
      const incident = opened[1]!
      expect(incident.target).toMatchObject({ type: "incident", name: "Search is down" })
      expect(incident.changes).toMatchObject({
        status: { before: null, after: "investigating" },
        componentIds: { before: null, after: [componentId] },
        automation: { before: null, after: "active" }
      })

      // Recovery, resolved at once (resolveAfterSeconds 0): a note and the resolution.
      yield* round(monitorId, [])
      const recovered = yield* entriesSince(incident.id)
      expect(recovered.map((entry) => [entry.operation, entry.actor.name, entry.target.id])).toEqual([
        ["components.setStatusByMonitor", "monitors", componentId],
        ["incidents.updateAutomatically", "incident-automation", incident.target.id],
        ["incidents.resolveAutomatically", "incident-automation", incident.target.id]
      ])
      expect(recovered[2]!.changes.status).toEqual({ before: "monitoring", after: "resolved" })

      // A pass with nothing to do writes nothing.
      yield* (yield* IncidentAutomation).advanceAll
      expect(yield* entriesSince(recovered[2]!.id)).toEqual([])
    }))

  it.effect("the maintenance clock's starts and ends are its entries, with the statuses they moved", () =>
    Effect.gen(function*() {
      const component = (yield* sendJson("POST", "/api/v1/admin/components", { name: "Database" })).body
      const now = yield* Clock.currentTimeMillis
      const iso = (at: number) => new Date(at).toISOString()
      const window = yield* sendJson("POST", "/api/v1/admin/maintenance", {
        title: "Upgrade",
        scheduledStart: iso(now + 60_000),
        scheduledEnd: iso(now + 120_000),
        componentIds: [component.id]
      })
      expect(window.status).toBe(201)
      const before = yield* newestId
      const windows = yield* MaintenanceWindows

      yield* windows.runDue(DateTime.makeUnsafe(now + 90_000))
      const started = yield* entriesSince(before)
      expect(started).toEqual([
        expect.objectContaining({
          operation: "maintenance.start",
          actor: { type: "system", id: null, name: "maintenance-clock" },
          target: { type: "maintenance", id: window.body.id, name: "Upgrade" },
          changes: {
            status: { before: "scheduled", after: "in_progress" },
            componentStatuses: {
              before: [{ id: component.id, name: "Database", status: "operational" }],
              after: [{ id: component.id, name: "Database", status: "maintenance" }]
            }
          }
        })
      ])
      // Not due again: nothing.
      yield* windows.runDue(DateTime.makeUnsafe(now + 100_000))
      expect(yield* entriesSince(started[0]!.id)).toEqual([])

      yield* windows.runDue(DateTime.makeUnsafe(now + 150_000))
      const ended = yield* entriesSince(started[0]!.id)
      expect(ended.map((entry) => [entry.operation, entry.actor.name, entry.changes])).toEqual([
        ["maintenance.end", "maintenance-clock", {
          status: { before: "in_progress", after: "completed" },
          componentStatuses: {
            before: [{ id: component.id, name: "Database", status: "maintenance" }],
            after: [{ id: component.id, name: "Database", status: "operational" }]
          }
        }]
      ])
    }))
})
