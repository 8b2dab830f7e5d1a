/**
 * An incident's impact on its components, over the real API, ingest and database, on the
 * TestClock: `componentStatuses` sets statuses in the incident's own transaction (one
 * `component.status_changed` per change, nothing at all when it fails), `restoreComponents` gives
 * them back as monitors and maintenance allow, and any operator change hands an incident a
 * monitor opened over to the operators.
 */
import { expect, it } from "@effect/vitest"
import { Clock, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import type { ComponentId } from "../../src/domain/Component.js"
import type { IncidentId } from "../../src/domain/Incident.js"
import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { scheduleSoon } from "../support/Maintenance.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

// Ingest and the maintenance transitions are driven by hand, minute by minute on the TestClock.
const Stack = Layer.mergeAll(ResultIngest.layer, MaintenanceWindows.layer).pipe(Layer.provideMerge(TestServer()))

const base = "/api/v1/admin/incidents"

const component = (name: string) =>
  Effect.flatMap(ApiClient, (client) => client.components.create({ payload: { name: `${name} ${Math.random()}` } }))

/** A component's status and who set it, as stored. */
const statusOf = (id: ComponentId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string; setBy: string }>`select status, status_set_by as set_by from components where id = ${id}`
  )
    .pipe(Effect.map((rows) => rows[0]), Effect.orDie)

/** The component.status_changed rows after `mark`, as "id: previous -> status". */
const statusChanges = (mark: string) =>
  Effect.map(
    outboxSince(mark),
    (rows) =>
      rows.filter((row) => row.event === "component.status_changed").map((row) =>
        `${row.payload.id}: ${row.payload.previousStatus} -> ${row.payload.status}`
      ).sort()
  )

const incidentEvents = (mark: string) =>
  Effect.map(outboxSince(mark), (rows) => rows.filter((row) => row.event.startsWith("incident.")))

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

/** One check a minute from now on for each monitor, with the given outcomes (a round each). */
const rounds = (outcomes: ReadonlyArray<Record<string, boolean>>) =>
  Effect.forEach(outcomes, (round) =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 minute")
      const now = yield* Clock.currentTimeMillis
      yield* (yield* ResultIngest).ingest(
        Object.entries(round).map(([monitorId, ok]) => checkResult(monitorId, "local", slotOf(monitorId, now - 30), ok))
      )
    }), { discard: true })

/** Moves the clock on by `minutes` and runs the maintenance transitions due then. */
const maintenanceTick = (minutes: number) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(`${minutes} minutes`)
    yield* (yield* MaintenanceWindows).runDue(yield* DateTime.now)
  })

it.layer(Stack)("incident impact", (it) => {
  it.effect("create with componentStatuses sets them with the incident and names the components", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const web = yield* component("Web")
      const search = yield* component("Search")
      const listed = yield* component("Listed")
      yield* client.components.setStatus({ params: { id: search.id }, payload: { status: "degraded" } })
      const mark = yield* outboxMark

      const created = yield* sendJson("POST", base, {
        title: "Impact on create",
        message: "Looking",
        componentIds: [listed.id],
        componentStatuses: { [api.id]: "major_outage", [web.id]: "partial_outage", [search.id]: "degraded" }
      })
      expect(created.status).toBe(201)
      expect(created.body.componentIds).toEqual(sorted([api.id, web.id, search.id, listed.id]))
      expect(yield* statusOf(api.id)).toEqual({ status: "major_outage", setBy: "operator" })
      expect(yield* statusOf(web.id)).toEqual({ status: "partial_outage", setBy: "operator" })
      expect((yield* statusOf(search.id))?.status).toBe("degraded")
      expect((yield* statusOf(listed.id))?.status).toBe("operational")
      // One event per changed component (none for Search, already degraded), then the incident's.
      expect(yield* statusChanges(mark)).toEqual(sorted([
        `${api.id}: operational -> major_outage`,
        `${web.id}: operational -> partial_outage`
      ]))
      const events = yield* outboxSince(mark)
      expect(events.at(-1)!.event).toBe("incident.created")
      expect(events.at(-1)!.payload.componentIds).toEqual(sorted([api.id, web.id, search.id, listed.id]))
      expect(events).toHaveLength(3)

      // A draft's impact is public (the component's status is), the draft itself stays silent.
      const draftMark = yield* outboxMark
      const draft = yield* client.incidents.create({
        payload: {
          title: "Impact of a draft",
          message: "x",
          published: false,
          componentStatuses: { [listed.id]: "degraded" }
        }
      })
      expect(draft.componentIds).toEqual([listed.id])
      expect((yield* outboxSince(draftMark)).map((row) => row.event)).toEqual(["component.status_changed"])
    }))

  it.effect("an unknown component or status in componentStatuses is 400 and writes nothing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const target = yield* client.incidents.create({ payload: { title: "Target", message: "x" } })
      const mark = yield* outboxMark
      const incidentsBefore = (yield* client.incidents.list({ query: {} })).length

      // Known ids on either side of the unknown one in lock order: none of their statuses stays set.
      const unknown = { [api.id]: "major_outage", "0-unknown": "degraded", "zzz-unknown": "degraded" }
      for (
        const [label, method, url, body] of [
          ["create", "POST", base, { title: "Refused", message: "x", componentStatuses: unknown }],
          ["update", "PUT", `${base}/${target.id}`, { severity: "critical", componentStatuses: unknown }],
          ["add update", "POST", `${base}/${target.id}/updates`, {
            status: "identified",
            message: "Refused update",
            componentStatuses: unknown
          }]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
        expect(response.body._tag, label).toBe("BadRequest")
        expect(response.body.issues.map((issue: { path: unknown }) => issue.path), label).toEqual([
          ["componentStatuses", "0-unknown"],
          ["componentStatuses", "zzz-unknown"]
        ])
      }
      for (
        const [label, method, url, body] of [
          ["create", "POST", base, { title: "Refused", message: "x", componentStatuses: { [api.id]: "broken" } }],
          ["update", "PUT", `${base}/${target.id}`, { componentStatuses: { [api.id]: "down" } }],
          ["add update", "POST", `${base}/${target.id}/updates`, {
            status: "identified",
            message: "m",
            componentStatuses: { [api.id]: "resolved" }
          }],
          ["not an object", "POST", base, { title: "Refused", message: "x", componentStatuses: [api.id] }]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
      }

      expect(yield* outboxSince(mark)).toEqual([])
      expect((yield* statusOf(api.id))?.status).toBe("operational")
      expect((yield* client.incidents.list({ query: {} })).length).toBe(incidentsBefore)
      expect(yield* client.incidents.get({ params: { id: target.id } })).toMatchObject({
        severity: "minor",
        status: "investigating",
        componentIds: [],
        updates: [expect.objectContaining({ message: "x" })]
      })
    }))

  it.effect("PUT and POST updates with componentStatuses set them and add the components", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const web = yield* component("Web")
      const search = yield* component("Search")
      const incident = yield* client.incidents.create({
        payload: { title: "Spreading", message: "x", componentIds: [api.id] }
      })

      const putMark = yield* outboxMark
      const put = yield* client.incidents.update({
        params: { id: incident.id },
        payload: { componentStatuses: { [web.id]: "major_outage" } }
      })
      expect(put.componentIds).toEqual(sorted([api.id, web.id]))
      expect(yield* statusChanges(putMark)).toEqual([`${web.id}: operational -> major_outage`])
      expect((yield* incidentEvents(putMark)).map((row) => row.event)).toEqual(["incident.updated"])
      expect((yield* incidentEvents(putMark))[0]!.payload.componentIds).toEqual(sorted([api.id, web.id]))

      // componentIds replaces the list; the components whose status is set are named with it.
      const replaced = yield* client.incidents.update({
        params: { id: incident.id },
        payload: { componentIds: [api.id], componentStatuses: { [search.id]: "degraded" } }
      })
      expect(replaced.componentIds).toEqual(sorted([api.id, search.id]))

      const updateMark = yield* outboxMark
      const updated = yield* client.incidents.addUpdate({
        params: { id: incident.id },
        payload: {
          status: "identified",
          message: "Found it",
          componentStatuses: { [api.id]: "partial_outage", [search.id]: "degraded" }
        }
      })
      expect(updated).toMatchObject({ status: "identified", message: "Found it" })
      expect(updated.componentIds).toEqual(sorted([api.id, search.id]))
      expect(yield* statusChanges(updateMark)).toEqual([`${api.id}: operational -> partial_outage`])
      expect((yield* incidentEvents(updateMark)).map((row) => row.event)).toEqual(["incident.updated"])
      expect(yield* statusOf(api.id)).toEqual({ status: "partial_outage", setBy: "operator" })
      expect((yield* statusOf(web.id))?.status).toBe("major_outage")
    }))

  it.effect("restoreComponents gives components back operational; without it nothing changes", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const web = yield* component("Web")
      const impact = { [api.id]: "major_outage", [web.id]: "degraded" } as const

      // PATCH resolve without restoreComponents leaves them.
      const kept = yield* client.incidents.create({
        payload: { title: "Kept", message: "x", componentStatuses: impact }
      })
      const keptMark = yield* outboxMark
      yield* client.incidents.resolve({ params: { id: kept.id }, payload: { message: "Done" } })
      expect((yield* statusOf(api.id))?.status).toBe("major_outage")
      expect((yield* statusOf(web.id))?.status).toBe("degraded")
      expect(yield* statusChanges(keptMark)).toEqual([])

      // PATCH resolve with it restores them, one event each, before the incident's.
      const restored = yield* client.incidents.create({
        payload: { title: "Restored", message: "x", componentIds: [api.id, web.id] }
      })
      const restoreMark = yield* outboxMark
      const resolved = yield* sendJson("PATCH", `${base}/${restored.id}/resolve`, { restoreComponents: true })
      expect(resolved.status).toBe(200)
      expect(resolved.body.status).toBe("resolved")
      expect(yield* statusOf(api.id)).toEqual({ status: "operational", setBy: "operator" })
      expect((yield* statusOf(web.id))?.status).toBe("operational")
      expect(yield* statusChanges(restoreMark)).toEqual(sorted([
        `${api.id}: major_outage -> operational`,
        `${web.id}: degraded -> operational`
      ]))
      expect((yield* outboxSince(restoreMark)).at(-1)!.event).toBe("incident.resolved")

      // An update resolving the incident restores too; other statuses refuse restoreComponents.
      const byUpdate = yield* client.incidents.create({
        payload: { title: "By update", message: "x", componentStatuses: impact }
      })
      const refusedMark = yield* outboxMark
      for (const status of ["identified", "monitoring", "investigating"]) {
        const refused = yield* sendJson("POST", `${base}/${byUpdate.id}/updates`, {
          status,
          message: "Not yet",
          restoreComponents: true
        })
        expect(refused.status, status).toBe(400)
        expect(refused.body.issues, status).toEqual([{ path: ["restoreComponents"], message: expect.any(String) }])
      }
      expect(yield* outboxSince(refusedMark)).toEqual([])
      expect((yield* client.incidents.get({ params: { id: byUpdate.id } })).updates).toHaveLength(1)
      // False is no request to restore: any status takes it.
      const notRestoring = yield* sendJson("POST", `${base}/${byUpdate.id}/updates`, {
        status: "monitoring",
        message: "Watching",
        restoreComponents: false
      })
      expect(notRestoring.status).toBe(201)
      expect((yield* statusOf(api.id))?.status).toBe("major_outage")

      // Both impacts in one update would undo one another: 400, nothing written.
      const both = yield* sendJson("POST", `${base}/${byUpdate.id}/updates`, {
        status: "resolved",
        message: "Fixed",
        componentStatuses: { [web.id]: "major_outage" },
        restoreComponents: true
      })
      expect(both.status).toBe(400)
      expect(both.body.issues).toEqual([{ path: ["componentStatuses"], message: expect.any(String) }])
      expect((yield* client.incidents.get({ params: { id: byUpdate.id } })).status).toBe("monitoring")
      // An empty map sets nothing: a PUT with nothing else changes nothing and writes no event.
      const emptyMark = yield* outboxMark
      const before = yield* client.incidents.get({ params: { id: byUpdate.id } })
      const empty = yield* sendJson("PUT", `${base}/${byUpdate.id}`, { componentStatuses: {} })
      expect(empty.status).toBe(200)
      expect(empty.body.updatedAt).toBe(DateTime.formatIso(before.updatedAt))
      expect(yield* outboxSince(emptyMark)).toEqual([])

      const resolvedByUpdate = yield* client.incidents.addUpdate({
        params: { id: byUpdate.id },
        payload: { status: "resolved", message: "Fixed", restoreComponents: true }
      })
      expect(resolvedByUpdate.status).toBe("resolved")
      expect((yield* statusOf(api.id))?.status).toBe("operational")
      expect((yield* statusOf(web.id))?.status).toBe("operational")
    }))

  it.effect("restoreComponents hands a component with monitors back to them, at what they find", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const checkout = yield* component("Checkout")
      const plain = yield* component("Plain")
      const monitor = (name: string) =>
        client.monitors.create({
          payload: { componentId: checkout.id, type: "http", url: `https://${name}.example.com`, failureThreshold: 2 }
        })
      const failing = yield* monitor("failing")
      const passing = yield* monitor("passing")
      // One of two monitors down: the monitors call for a partial outage.
      yield* rounds([{ [failing.id]: false, [passing.id]: true }, { [failing.id]: false, [passing.id]: true }])
      expect(yield* statusOf(checkout.id)).toEqual({ status: "partial_outage", setBy: "monitors" })

      // The operator says worse; the monitors leave the operator's status alone.
      const incident = yield* client.incidents.create({
        payload: {
          title: "Checkout down",
          message: "x",
          componentStatuses: { [checkout.id]: "major_outage", [plain.id]: "major_outage" }
        }
      })
      yield* rounds([{ [failing.id]: false, [passing.id]: true }])
      expect(yield* statusOf(checkout.id)).toEqual({ status: "major_outage", setBy: "operator" })

      const mark = yield* outboxMark
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: { restoreComponents: true } })
      expect(yield* statusOf(checkout.id)).toEqual({ status: "partial_outage", setBy: "monitors" })
      expect(yield* statusOf(plain.id)).toEqual({ status: "operational", setBy: "operator" })
      expect(yield* statusChanges(mark)).toEqual(sorted([
        `${checkout.id}: major_outage -> partial_outage`,
        `${plain.id}: major_outage -> operational`
      ]))

      // The status is the monitors' again: their recovery clears it.
      yield* rounds([{ [failing.id]: true, [passing.id]: true }, { [failing.id]: true, [passing.id]: true }])
      expect(yield* statusOf(checkout.id)).toEqual({ status: "operational", setBy: "monitors" })
    }))

  it.effect("restoreComponents leaves a component in an in-progress maintenance window in maintenance", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const database = yield* component("Database")
      const api = yield* component("API")
      yield* scheduleSoon("Upgrade", [database.id], 10)
      yield* maintenanceTick(1)
      expect((yield* statusOf(database.id))?.status).toBe("maintenance")

      const incident = yield* client.incidents.create({
        payload: {
          title: "During the upgrade",
          message: "x",
          componentIds: [database.id],
          componentStatuses: { [api.id]: "partial_outage" }
        }
      })
      const mark = yield* outboxMark
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: { restoreComponents: true } })
      expect((yield* statusOf(database.id))?.status).toBe("maintenance")
      expect((yield* statusOf(api.id))?.status).toBe("operational")
      expect(yield* statusChanges(mark)).toEqual([`${api.id}: partial_outage -> operational`])

      // The window's end hands the status back.
      yield* maintenanceTick(10)
      expect((yield* statusOf(database.id))?.status).toBe("operational")
    }))

  it.effect("an incident's status set during a window is given back to the window by restoreComponents", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const database = yield* component("Database")
      yield* scheduleSoon("Migration", [database.id], 10)
      yield* maintenanceTick(1)
      // The window's work goes wrong: an incident says so on the component.
      const incident = yield* client.incidents.create({
        payload: { title: "Migration failed", message: "x", componentStatuses: { [database.id]: "major_outage" } }
      })
      expect((yield* statusOf(database.id))?.status).toBe("major_outage")

      // Restored while the window runs: maintenance, which the window then hands back at its end
      // (docs/status-model.md, "Impact"); the component must not stay in the incident's outage.
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: { restoreComponents: true } })
      expect((yield* statusOf(database.id))?.status).toBe("maintenance")
      yield* maintenanceTick(10)
      expect((yield* statusOf(database.id))?.status).toBe("operational")
    }))

  it.effect("any operator change hands an automatic incident over; publishing a draft does not", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const checkout = yield* component("Checkout")
      /** An incident as the automation opens it (IncidentAutomation is built apart): a row of its own monitor. */
      const automatic = (title: string, published = true) =>
        Effect.gen(function*() {
          const monitor = yield* client.monitors.create({
            payload: { componentId: checkout.id, type: "http", url: "https://example.com", failureThreshold: 2 }
          })
          const [row] = yield* sql<{ id: IncidentId }>`
            insert into incidents (title, status, severity, chosen_public, published, source, monitor_id, automation,
                                   monitor_down_since)
            values (${title}, 'investigating', 'major', ${published}, ${published}, 'monitor', ${monitor.id}, 'active',
                    now())
            returning id`
          yield* sql`insert into incident_components (incident_id, component_id) values (${row!.id}, ${checkout.id})`
          yield* sql`insert into incident_updates (incident_id, status, message)
                     values (${row!.id}, 'investigating', 'Our checks fail')`
          const incident = yield* client.incidents.get({ params: { id: row!.id } })
          expect(incident).toMatchObject({ source: "monitor", monitorId: monitor.id, automation: "active" })
          return incident
        })
      const automationOf = (id: IncidentId) =>
        Effect.map(client.incidents.get({ params: { id } }), (incident) => incident.automation)

      const edited = yield* automatic("Edited")
      // An empty PUT changes nothing, so hands nothing over; a refused change neither.
      yield* client.incidents.update({ params: { id: edited.id }, payload: {} })
      expect(yield* automationOf(edited.id)).toBe("active")
      const refused = yield* sendJson("PUT", `${base}/${edited.id}`, { componentStatuses: { nope: "degraded" } })
      expect(refused.status).toBe(400)
      expect(yield* automationOf(edited.id)).toBe("active")
      const put = yield* client.incidents.update({ params: { id: edited.id }, payload: { severity: "critical" } })
      expect(put.automation).toBe("handed_over")

      const updated = yield* automatic("Updated")
      const refusedUpdate = yield* sendJson("POST", `${base}/${updated.id}/updates`, {
        status: "identified",
        message: "m",
        restoreComponents: true
      })
      expect(refusedUpdate.status).toBe(400)
      expect(yield* automationOf(updated.id)).toBe("active")
      const added = yield* client.incidents.addUpdate({
        params: { id: updated.id },
        payload: { status: "identified", message: "We found it" }
      })
      expect(added.automation).toBe("handed_over")

      const resolvedByUpdate = yield* automatic("Resolved by update")
      const closed = yield* client.incidents.addUpdate({
        params: { id: resolvedByUpdate.id },
        payload: { status: "resolved", message: "Done" }
      })
      expect(closed).toMatchObject({ status: "resolved", automation: "handed_over" })

      const resolved = yield* automatic("Resolved")
      const patched = yield* client.incidents.resolve({ params: { id: resolved.id }, payload: null })
      expect(patched).toMatchObject({ status: "resolved", automation: "handed_over" })

      const draft = yield* automatic("Draft", false)
      const published = yield* client.incidents.publish({ params: { id: draft.id } })
      expect(published).toMatchObject({ published: true, automation: "active" })

      // A manual incident has no automation to hand over.
      const manual = yield* client.incidents.create({ payload: { title: "Manual", message: "x" } })
      expect(manual).toMatchObject({ source: "manual", monitorId: null, automation: null })
      expect((yield* client.incidents.update({ params: { id: manual.id }, payload: { severity: "major" } })).automation)
        .toBeNull()
    }))
})
