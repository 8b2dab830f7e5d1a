/**
 * The rules of incidents (Incidents), without PostgreSQL: an incident's `componentStatuses` are
 * handed to ComponentStatuses, and the incident names and holds those components; a change that
 * changes nothing writes nothing; resolving gives components back only with `restoreComponents`
 * (refused without `resolved`, or beside `componentStatuses`), and a resolved incident is not
 * resolved again nor reopened; drafts write no events until published, which tells once with the
 * timeline so far; an operator's change hands an automatic incident over, the automation's own
 * writes and publishing do not, and the automation never resolves an incident it handed over.
 * The repository is in memory: `handOver` moves only an active automation and `touch` sets the
 * status, as their statements do. ComponentStatuses is made of what it is given: its own rules are
 * componentStatuses.unit.test.ts's. The same on PostgreSQL: test/catalog/incidents.test.ts,
 * incidentDrafts, incidentImpact, incidentImpactHolds, and test/monitoring/automaticIncidents.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"

import type { ComponentId, ComponentStatus } from "../../src/domain/Component.js"
import {
  Incident,
  type IncidentAutomation,
  type IncidentId,
  type IncidentSeverity,
  type IncidentStatus,
  IncidentUpdate
} from "../../src/domain/Incident.js"
import { orUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { IncidentsRepo } from "../../src/persistence/IncidentsRepo.js"
import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { Visibility } from "../../src/persistence/Visibility.js"
import { AuditTrail } from "../../src/services/audit/AuditTrail.js"
import { ComponentStatuses } from "../../src/services/catalog/ComponentStatuses.js"
import { Incidents } from "../../src/services/catalog/Incidents.js"
import { IncidentTemplates } from "../../src/services/catalog/IncidentTemplates.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { makeTestLayer } from "../support/TestLayer.js"

interface Row {
  title: string
  status: IncidentStatus
  severity: IncidentSeverity
  published: boolean
  monitorId: string | null
  automation: IncidentAutomation | null
  componentIds: ReadonlyArray<ComponentId>
  updates: Array<{ status: IncidentStatus; message: string }>
}

const impact = (statuses: Record<string, ComponentStatus>) => statuses as Record<ComponentId, ComponentStatus>
const at = DateTime.makeUnsafe(Date.parse("2025-01-01T03:00:00Z"))

const world = () => {
  const rows = new Map<IncidentId, Row>()
  const events: Array<{ event: string; data: any; componentIds: ReadonlyArray<string> }> = []
  const set: Array<Record<string, ComponentStatus>> = []
  const holds: Array<{ incident: IncidentId; ids: ReadonlyArray<ComponentId> }> = []
  const restored: Array<{ incident: IncidentId; ids: ReadonlyArray<ComponentId> }> = []
  const row = (id: IncidentId) => rows.get(id)!
  const write = (f: () => void) =>
    Effect.sync(() => {
      f()
      return []
    })

  const repo = makeTestLayer(IncidentsRepo)({
    findById: (id) =>
      Effect.sync(() =>
        Option.fromNullishOr(rows.get(id)).pipe(Option.map((r) =>
          new Incident({
            ...r,
            id,
            message: r.updates.at(-1)?.message ?? "",
            updates: r.updates.map((u, n) => new IncidentUpdate({ id: `${id}/${n}`, ...u, createdAt: at })),
            createdAt: at,
            updatedAt: at,
            resolvedAt: r.status === "resolved" ? at : null,
            postmortem: null,
            isPublic: r.published,
            source: r.monitorId === null ? "manual" : "monitor"
          })
        ))
      ),
    // Undefined for an unknown id, as the statements' first row.
    lockStatus: (id) => Effect.sync(() => rows.get(id)?.status as IncidentStatus),
    lockAutomation: (id) => Effect.sync(() => rows.get(id) as Row),
    insert: (input) =>
      Effect.sync(() => {
        const id = `i-${rows.size + 1}` as IncidentId
        const { monitor, ...fields } = input
        const automation = monitor === undefined ? null : "active"
        rows.set(id, { ...fields, monitorId: monitor?.id ?? null, automation, componentIds: [], updates: [] })
        return id
      }),
    publish: (id) => write(() => row(id).published = true),
    // `where automation = 'active'`: a manual incident stays without one.
    handOver: (id) =>
      write(() => {
        if (row(id).automation === "active") row(id).automation = "handed_over"
      }),
    update: (id, fields) =>
      write(() =>
        Object.assign(row(id), Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)))
      ),
    touch: (id, status) => write(() => row(id).status = status),
    setComponents: (id, ids) => write(() => row(id).componentIds = ids),
    addUpdate: (id, status, message) => write(() => row(id).updates.push({ status, message }))
  })

  const layer = Layer.mergeAll(
    Incidents.layerWithoutDependencies.pipe(Layer.provide([
      repo,
      makeTestLayer(OutboxRepo)({
        append: (event, data, componentIds) => Effect.sync(() => void events.push({ event, data, componentIds }))
      }),
      makeTestLayer(StateChanges)({ commit: orUnavailable }),
      // Audit entries are the integration tests' (test/audit).
      makeTestLayer(AuditTrail)({ record: () => Effect.void }),
      // A request without a template, as IncidentTemplates.fill merges one.
      makeTestLayer(IncidentTemplates)({
        fill: (request) =>
          Effect.succeed({
            title: request.title!,
            message: request.message!,
            status: request.status ?? "investigating",
            severity: request.severity ?? "minor",
            componentIds: request.componentIds ?? []
          })
      }),
      makeTestLayer(ComponentStatuses)({
        setForIncident: (statuses) =>
          Effect.sync(() => {
            set.push(statuses)
            return Object.keys(statuses) as Array<ComponentId>
          }),
        holdForIncident: (incident, ids) => Effect.sync(() => void holds.push({ incident, ids })),
        restoreAfterIncident: (incident, ids) => Effect.sync(() => void restored.push({ incident, ids }))
      }),
      makeTestLayer(Visibility)({
        choose: () => Effect.succeed([]),
        chooseAgain: () => Effect.succeed([]),
        widen: () => Effect.succeed([]),
        set: () => Effect.succeed([])
      })
    ])),
    // For `existingComponents`, which these tests never give ids to check.
    makeTestLayer(SqlClient.SqlClient)({})
  )

  const run = <A, E, R>(f: (incidents: Incidents["Service"]) => Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      return yield* f(yield* Incidents)
    }).pipe(Effect.provide(layer))

  return { rows, row, events, set, holds, restored, run }
}

const opening = { title: "Checkout is down", message: "Looking into it" }

describe("Incidents", () => {
  it.effect("componentStatuses are set by ComponentStatuses, named and held by the incident; a change of nothing writes nothing", () =>
    Effect.gen(function*() {
      const w = world()
      const created = yield* w.run((incidents) =>
        incidents.create({ ...opening, componentStatuses: impact({ api: "major_outage" }) })
      )
      expect(created).toMatchObject({ status: "investigating", componentIds: ["api"], message: "Looking into it" })
      const id = created.id
      const update = {
        status: "identified",
        message: "The database",
        componentStatuses: impact({ db: "degraded" })
      } as const
      yield* w.run((incidents) => incidents.addUpdate(id, update))
      expect(w.set).toEqual([{ api: "major_outage" }, { db: "degraded" }])
      expect(w.holds).toEqual([{ incident: id, ids: ["api"] }, { incident: id, ids: ["db"] }])
      expect(w.row(id)).toMatchObject({ status: "identified", componentIds: ["api", "db"] })
      expect(w.events.map((e) => [e.event, e.data.status, e.componentIds])).toEqual([
        ["incident.created", "investigating", ["api"]],
        ["incident.updated", "identified", ["api", "db"]]
      ])
      yield* w.run((incidents) => incidents.update(id, {}))
      yield* w.run((incidents) => incidents.update(id, { componentStatuses: impact({}) }))
      expect([w.events.length, w.set.length]).toEqual([2, 2])
    }))

  it.effect("resolving gives components back only with restoreComponents; a resolved incident stays resolved", () =>
    Effect.gen(function*() {
      const w = world()
      const [a, b] = yield* w.run((incidents) =>
        Effect.all([
          incidents.create({ ...opening, componentStatuses: impact({ api: "major_outage" }) }),
          incidents.create({ ...opening, componentStatuses: impact({ db: "partial_outage" }) })
        ])
      ).pipe(Effect.map((created) => created.map((incident) => incident.id)))
      yield* w.run((incidents) => incidents.resolve(a!, {}))
      expect(w.row(a!)).toMatchObject({ status: "resolved" })
      const resolved = { event: "incident.resolved", data: { message: "This incident has been resolved." } }
      expect(w.events.at(-1)).toMatchObject(resolved)
      expect(w.restored).toEqual([])
      const refused = yield* w.run((incidents) =>
        Effect.all([
          Effect.flip(incidents.resolve(a!, {})),
          Effect.flip(incidents.update(a!, { status: "identified" })),
          Effect.flip(incidents.addUpdate(b!, { status: "monitoring", message: "Better", restoreComponents: true })),
          Effect.flip(incidents.addUpdate(b!, {
            status: "resolved",
            message: "Fixed",
            restoreComponents: true,
            componentStatuses: impact({ db: "operational" })
          }))
        ])
      )
      expect(refused.map((error) => error._tag)).toEqual(["Conflict", "Conflict", "BadRequest", "BadRequest"])
      yield* w.run((incidents) =>
        incidents.addUpdate(b!, { status: "resolved", message: "Fixed", restoreComponents: true })
      )
      expect(w.restored).toEqual([{ incident: b, ids: ["db"] }])
      expect(w.row(b!).updates.at(-1)).toEqual({ status: "resolved", message: "Fixed" })
      expect(w.events.filter((e) => e.event === "incident.resolved")).toHaveLength(2)
    }))

  it.effect("a draft writes no events until published, which tells once with the timeline so far", () =>
    Effect.gen(function*() {
      const w = world()
      const draft = yield* w.run((incidents) =>
        incidents.create({ ...opening, published: false, componentStatuses: impact({ api: "major_outage" }) })
      )
      yield* w.run((incidents) =>
        Effect.all([
          incidents.addUpdate(draft.id, { status: "identified", message: "The database" }),
          incidents.update(draft.id, { severity: "major" })
        ])
      )
      expect(w.events).toEqual([])
      expect(w.set).toEqual([{ api: "major_outage" }])
      yield* w.run((incidents) => Effect.all([incidents.publish(draft.id), incidents.publish(draft.id)]))
      expect(w.events).toHaveLength(1)
      expect(w.events[0]).toMatchObject({
        event: "incident.created",
        data: { severity: "major", status: "identified" }
      })
      expect(w.events[0]!.data.updates.map((u: { message: string }) => u.message)).toEqual([
        "Looking into it",
        "The database"
      ])
    }))

  it.effect("an operator's change hands an automatic incident over; the automation's writes and publishing do not", () =>
    Effect.gen(function*() {
      const w = world()
      const automatic = (monitorId: string, published: boolean) =>
        w.run((incidents) =>
          incidents.automatic.open({
            monitorId,
            downSince: new Date(0),
            title: "API is down",
            message: "Our checks fail. We are investigating.",
            severity: "major",
            componentId: "api" as ComponentId,
            published
          })
        ).pipe(Effect.map((incident) => incident.id))
      const taken = yield* automatic("m1", true)
      yield* w.run((incidents) => incidents.automatic.note(taken, "Our checks succeed again.", "monitoring"))
      expect(w.row(taken)).toMatchObject({ status: "monitoring", automation: "active", componentIds: ["api"] })
      yield* w.run((incidents) => incidents.addUpdate(taken, { status: "identified", message: "A bad deploy" }))
      yield* w.run((incidents) =>
        Effect.andThen(
          incidents.automatic.note(taken, "The problem is back.", "investigating"),
          incidents.automatic.resolve(taken, "Resolved by the checks")
        )
      )
      expect(w.row(taken)).toMatchObject({ status: "identified", automation: "handed_over" })
      expect(w.row(taken).updates.map((u) => u.status).join()).toBe("investigating,monitoring,identified,identified")

      const draft = yield* automatic("m2", false)
      expect(w.events.filter((e) => e.event === "incident.created")).toHaveLength(1)
      yield* w.run((incidents) => incidents.publish(draft))
      yield* w.run((incidents) => incidents.automatic.resolve(draft, "Resolved by the checks"))
      expect(w.row(draft)).toMatchObject({ status: "resolved", automation: "active" })
      // The automation gives no component back: their statuses are the monitors'.
      expect([w.restored, w.set]).toEqual([[], []])
      expect(w.events.map((e) => e.event.slice("incident.".length)).join()).toBe(
        "created,updated,updated,updated,created,resolved"
      )
    }))
})
