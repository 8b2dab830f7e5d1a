/**
 * The rules of a component's one writer (ComponentStatuses), without PostgreSQL: its repositories
 * are made of the few methods it uses, over an in-memory table that sets `statusSetBy` the way
 * migration 0010's trigger does (only when the status changes). The same rules are tested on the
 * real database by componentEvents, incidentImpact, incidentImpactHolds, maintenanceMonitors and
 * monitorPause.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Layer, Option } from "effect"

import { Component, type ComponentId, type ComponentStatus, type StatusSetBy } from "../../src/domain/Component.js"
import type { IncidentId } from "../../src/domain/Incident.js"
import type { MaintenanceId } from "../../src/domain/Maintenance.js"
import type { MonitorState } from "../../src/domain/Quorum.js"
import { ComponentStatusRepo, StatusSourceRow } from "../../src/persistence/ComponentStatusRepo.js"
import { MaintenanceRepo } from "../../src/persistence/MaintenanceRepo.js"
import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { ComponentStatuses, monitorsMayMove } from "../../src/services/catalog/ComponentStatuses.js"
import { makeTestLayer } from "../support/TestLayer.js"

interface Row {
  status: ComponentStatus
  statusSetBy: StatusSetBy
  monitors: Array<MonitorState>
}

const id = (name: string) => name as ComponentId
const incidentStatuses = (statuses: Record<string, ComponentStatus>) => statuses as Record<ComponentId, ComponentStatus>

/** The tables the rules read, in memory, and the events they append. */
const world = (rows: Record<string, Row>) => {
  const components = new Map(Object.entries(rows).map(([name, row]) => [id(name), { ...row }]))
  const inMaintenance = new Set<ComponentId>()
  const holds: Array<{ incident: IncidentId; component: ComponentId; open: boolean }> = []
  const remembered = new Map<string, { previousStatus: ComponentStatus; previousSetBy: StatusSetBy }>()
  const events: Array<{ id: string; previousStatus: string; status: string }> = []

  const sourceOf = (key: ComponentId) => {
    const row = components.get(key)
    return row === undefined
      ? Option.none()
      : Option.some(new StatusSourceRow({ id: key, name: key, status: row.status, statusSetBy: row.statusSetBy }))
  }

  const layer = ComponentStatuses.layerWithoutDependencies.pipe(Layer.provide([
    makeTestLayer(ComponentStatusRepo)({
      lock: (key) => Effect.succeed(sourceOf(key)),
      set: (key, status, setBy) =>
        Effect.sync(() => {
          const row = components.get(key)
          if (row === undefined) return Option.none()
          if (row.status !== status) Object.assign(row, { status, statusSetBy: setBy })
          const at = DateTime.makeUnsafe(0)
          return Option.some(
            new Component({
              id: key,
              name: key,
              description: "",
              status: row.status,
              displayOrder: 0,
              isPublic: true,
              groupId: null,
              createdAt: at,
              updatedAt: at
            })
          )
        }),
      monitorStates: (key) => Effect.succeed(components.get(key)?.monitors ?? []),
      inMaintenance: (key) => Effect.succeed(inMaintenance.has(key)),
      heldByAnotherIncident: (incident, key) =>
        Effect.succeed(holds.some((h) => h.open && h.component === key && h.incident !== incident)),
      holdForIncident: (incident, keys) =>
        Effect.sync(() => keys.forEach((component) => holds.push({ incident, component, open: true })))
    }),
    makeTestLayer(MaintenanceRepo)({
      rememberPrevious: (window, key) =>
        Effect.sync(() => {
          const row = components.get(key)!
          remembered.set(`${window}|${key}`, { previousStatus: row.status, previousSetBy: row.statusSetBy })
          return []
        }),
      // Asked only of components the window entered, as the window's own links are.
      restoreInfo: (window, key) => Effect.succeed({ ...remembered.get(`${window}|${key}`)!, stillCovered: false })
    }),
    makeTestLayer(OutboxRepo)({
      append: (_event, data) => Effect.sync(() => void events.push(data as (typeof events)[number]))
    })
  ]))

  const run = <A, E>(f: (statuses: ComponentStatuses["Service"]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      return yield* f(yield* ComponentStatuses)
    }).pipe(Effect.provide(layer))

  return { components, inMaintenance, holds, events, run }
}

describe("ComponentStatuses", () => {
  it("monitors move an operational status or their own, never maintenance nor an operator's", () => {
    expect(monitorsMayMove({ status: "operational", statusSetBy: "operator" })).toBe(true)
    expect(monitorsMayMove({ status: "major_outage", statusSetBy: "monitors" })).toBe(true)
    expect(monitorsMayMove({ status: "major_outage", statusSetBy: "operator" })).toBe(false)
    expect(monitorsMayMove({ status: "maintenance", statusSetBy: "monitors" })).toBe(false)
  })

  it.effect("following the monitors moves a status they may move, with one event per change", () =>
    Effect.gen(function*() {
      const w = world({
        api: { status: "operational", statusSetBy: "operator", monitors: ["down", "up"] },
        db: { status: "degraded", statusSetBy: "operator", monitors: ["down"] },
        cdn: { status: "maintenance", statusSetBy: "operator", monitors: ["down"] }
      })
      yield* w.run((statuses) => Effect.forEach([id("api"), id("db"), id("cdn")], statuses.followMonitors))
      expect(w.components.get(id("api"))).toMatchObject({ status: "partial_outage", statusSetBy: "monitors" })
      expect(w.components.get(id("db"))?.status).toBe("degraded")
      expect(w.components.get(id("cdn"))?.status).toBe("maintenance")
      expect(w.events).toEqual([{ id: "api", name: "api", previousStatus: "operational", status: "partial_outage" }])
      // Again: nothing to move, nothing recorded.
      yield* w.run((statuses) => statuses.followMonitors(id("api")))
      expect(w.events).toHaveLength(1)
    }))

  it.effect("an incident sets statuses as the operator's and refuses unknown components by name", () =>
    Effect.gen(function*() {
      const w = world({ api: { status: "operational", statusSetBy: "monitors", monitors: ["up"] } })
      const ids = yield* w.run((statuses) => statuses.setForIncident(incidentStatuses({ api: "major_outage" })))
      expect(ids).toEqual(["api"])
      expect(w.components.get(id("api"))).toMatchObject({ status: "major_outage", statusSetBy: "operator" })
      const unknown = yield* Effect.exit(
        w.run((statuses) => statuses.setForIncident(incidentStatuses({ nope: "degraded" })))
      )
      expect(Exit.isFailure(unknown) && JSON.stringify(unknown.cause)).toContain(
        "Unknown components in componentStatuses: \\\"nope\\\""
      )
    }))

  it.effect("restoring after an incident: held by another open one, in maintenance, monitors, or operational", () =>
    Effect.gen(function*() {
      const w = world({
        held: { status: "major_outage", statusSetBy: "operator", monitors: [] },
        covered: { status: "major_outage", statusSetBy: "operator", monitors: [] },
        watched: { status: "major_outage", statusSetBy: "operator", monitors: ["up", "down"] },
        plain: { status: "major_outage", statusSetBy: "operator", monitors: [] }
      })
      const [mine, theirs] = ["i-1" as IncidentId, "i-2" as IncidentId]
      w.holds.push({ incident: theirs, component: id("held"), open: true })
      w.inMaintenance.add(id("covered"))
      yield* w.run((statuses) =>
        statuses.restoreAfterIncident(mine, [id("plain"), id("watched"), id("covered"), id("held")])
      )
      expect(w.components.get(id("held"))?.status).toBe("major_outage")
      expect(w.components.get(id("covered"))).toMatchObject({ status: "maintenance", statusSetBy: "operator" })
      expect(w.components.get(id("watched"))).toMatchObject({ status: "partial_outage", statusSetBy: "monitors" })
      expect(w.components.get(id("plain"))).toMatchObject({ status: "operational", statusSetBy: "operator" })
      // Taken in id order, as every writer of several components takes them.
      expect(w.events.map((e) => e.id)).toEqual(["covered", "plain", "watched"])
    }))

  it.effect("a window gives back what it found, in the name of whoever had set it", () =>
    Effect.gen(function*() {
      const w = world({
        api: { status: "major_outage", statusSetBy: "monitors", monitors: ["down"] },
        web: { status: "degraded", statusSetBy: "operator", monitors: [] }
      })
      const window = "m-1" as MaintenanceId
      yield* w.run((statuses) => statuses.enterMaintenance(window, [id("web"), id("api")]))
      expect([...w.components.values()].map((row) => row.status)).toEqual(["maintenance", "maintenance"])
      // An operator changes one during the window: the end leaves it as it is.
      w.components.get(id("web"))!.status = "operational"
      yield* w.run((statuses) => statuses.leaveMaintenance(window, [id("api"), id("web")]))
      expect(w.components.get(id("api"))).toMatchObject({ status: "major_outage", statusSetBy: "monitors" })
      expect(w.components.get(id("web"))?.status).toBe("operational")
    }))
})
