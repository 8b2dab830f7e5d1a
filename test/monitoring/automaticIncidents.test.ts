/**
 * Incidents opened by monitors, over the real API, ingest and database, on the TestClock: an
 * outage found by quorum opens one incident with the regions' evidence, recovery says so, a flap
 * brings the same incident back, and the wait resolves it; operators can take it over; drafts
 * reach no one; an outage an operator closed is not reopened.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Layer, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { CheckResult, jobIdOf } from "../../src/domain/CheckJob.js"
import { sqlState } from "../../src/persistence/DatabaseErrors.js"
import { listen } from "../../src/persistence/Notifications.js"
import { IncidentAutomation } from "../../src/services/monitoring/IncidentAutomation.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { TestDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const Stack = Layer.mergeAll(ResultIngest.layer, IncidentAutomation.layer).pipe(Layer.provideMerge(TestServer()))

const regions = ["ap-south", "eu-west", "us-east"] as const

/** A failed check that never got an answer, with an error that names the target (it must not be published). */
const timedOut = (monitorId: string, region: string, scheduledAt: number) =>
  CheckResult.make({
    ...checkResult(monitorId, region, scheduledAt, false),
    jobId: jobIdOf(monitorId, scheduledAt),
    statusCode: null,
    error: "timed out after 10000 ms connecting to secret-host.internal:8443"
  })

/** One minute later, one check from each region: `failing` regions fail (eu-west with a 503, the others time out). */
const round = (monitorId: string, failing: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    const scheduledAt = slotOf(monitorId, (yield* Clock.currentTimeMillis) - 30)
    yield* (yield* ResultIngest).ingest(regions.map((region) =>
      !failing.includes(region)
        ? checkResult(monitorId, region, scheduledAt, true)
        : region === "eu-west"
        ? checkResult(monitorId, region, scheduledAt, false)
        : timedOut(monitorId, region, scheduledAt)
    ))
  })

const incidentsOf = (monitorId: string) =>
  Effect.map(
    Effect.flatMap(ApiClient, (client) => client.incidents.list({ query: {} })),
    (all) => all.filter((incident) => incident.monitorId === monitorId)
  )

const setup = (name: string, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name } })
    const response = yield* sendJson("POST", "/api/v1/admin/monitors", {
      componentId: component.id,
      type: "http",
      url: "https://secret-host.internal:8443/health?token=abc",
      failureThreshold: 1,
      regions: [...regions],
      incidentPolicy: "publish",
      ...fields
    })
    expect(response.status).toBe(201)
    return { component, monitorId: String(response.body.id) }
  })

it.layer(Stack)("automatic incidents", (it) => {
  it.effect("an outage opens one incident with the regions' evidence; recovery, a flap and the wait resolve it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component, monitorId } = yield* setup("Checkout", { resolveAfterSeconds: 300 })
      const monitor = (yield* client.monitors.list({ query: {} })).find((m) => m.id === monitorId)
      expect(monitor).toMatchObject({ incidentPolicy: "publish", incidentTemplateId: null, resolveAfterSeconds: 300 })

      // One region failing is no quorum: no incident.
      yield* round(monitorId, ["eu-west"])
      expect(yield* incidentsOf(monitorId)).toEqual([])

      const mark = yield* outboxMark
      yield* round(monitorId, ["eu-west", "us-east"])
      const [opened, ...others] = yield* incidentsOf(monitorId)
      expect(others).toEqual([])
      expect(opened).toMatchObject({
        source: "monitor",
        monitorId,
        automation: "active",
        published: true,
        status: "investigating",
        // Its component's only monitor is down: a major outage.
        severity: "major",
        title: "Checkout is down",
        componentIds: [component.id]
      })
      expect(opened!.message).toBe(
        "Our checks fail from 2 of 3 regions: eu-west (HTTP 503) and us-east (timed out). We are investigating."
      )
      // The check's raw error (it names the target) stays out of the incident.
      expect(JSON.stringify(opened)).not.toContain("secret-host")
      const events = (yield* outboxSince(mark)).map((row) => row.event).filter((event) => !event.startsWith("monitor."))
      expect(events).toEqual(["component.status_changed", "incident.created"])
      // The public sees it.
      const publicIncident = yield* client.status.incident({ params: { id: opened!.id } })
      expect(publicIncident.updates).toHaveLength(1)

      // Still down: nothing more. Worse: still the same incident.
      yield* round(monitorId, [...regions])
      yield* (yield* IncidentAutomation).advanceAll
      expect((yield* incidentsOf(monitorId)).map((i) => i.updates.length)).toEqual([1])

      // Recovery: monitoring at once.
      yield* round(monitorId, [])
      const [recovering] = yield* incidentsOf(monitorId)
      expect(recovering).toMatchObject({ status: "monitoring", message: expect.stringContaining("succeed again") })

      // A flap before the wait is over: the same incident, investigating again.
      yield* round(monitorId, ["eu-west", "us-east", "ap-south"])
      const flapped = yield* incidentsOf(monitorId)
      expect(flapped).toHaveLength(1)
      expect(flapped[0]).toMatchObject({ id: opened!.id, status: "investigating" })
      expect(flapped[0]!.message).toMatch(/^The problem is back\. Our checks fail from 3 of 3 regions/)

      // Up again; 4 minutes later (the rounds' minutes) it is still open, after 5 it is resolved.
      yield* round(monitorId, [])
      yield* round(monitorId, [])
      yield* round(monitorId, [])
      yield* round(monitorId, [])
      yield* round(monitorId, [])
      yield* (yield* IncidentAutomation).advanceAll
      expect((yield* incidentsOf(monitorId))[0]!.status).toBe("monitoring")
      yield* TestClock.adjust("1 minute")
      yield* (yield* IncidentAutomation).advanceAll
      const [resolved] = yield* incidentsOf(monitorId)
      expect(resolved).toMatchObject({ status: "resolved", automation: "active" })
      expect(resolved!.updates.map((u) => u.status)).toEqual([
        "investigating",
        "monitoring",
        "investigating",
        "monitoring",
        "resolved"
      ])
      expect(resolved!.message).toBe("Our checks have succeeded for 5 minutes. This incident is resolved.")

      // The next outage opens a new incident.
      yield* round(monitorId, [...regions])
      expect((yield* incidentsOf(monitorId)).map((i) => i.status)).toEqual(["investigating", "resolved"])
    }))

  it.effect("a flapping monitor: later relapses wait 5 minutes after the automation's last update; an untold one restarts the wait", () =>
    Effect.gen(function*() {
      const automation = yield* IncidentAutomation
      const { monitorId } = yield* setup("Flapping", { resolveAfterSeconds: 300 })
      const statuses = Effect.map(incidentsOf(monitorId), ([incident]) => incident!.updates.map((u) => u.status))
      yield* round(monitorId, [...regions])
      yield* round(monitorId, [])
      // The first relapse is told at once.
      yield* round(monitorId, [...regions])
      yield* round(monitorId, [])
      expect(yield* statuses).toEqual(["investigating", "monitoring", "investigating", "monitoring"])

      // A second relapse a minute later is not told yet (the pass keeps it pending); over before 5
      // minutes, it is not told at all.
      yield* round(monitorId, [...regions])
      yield* automation.advanceAll
      yield* round(monitorId, [])
      yield* automation.advanceAll
      expect(yield* statuses).toHaveLength(4)
      // But the monitor has been up only since it came back: 4 minutes later, not resolved yet.
      yield* TestClock.adjust("4 minutes")
      yield* automation.advanceAll
      expect((yield* incidentsOf(monitorId))[0]!.status).toBe("monitoring")

      // 7 minutes after the last update, a relapse is told at once.
      yield* round(monitorId, [...regions])
      expect(yield* statuses).toEqual(["investigating", "monitoring", "investigating", "monitoring", "investigating"])

      // Recovered at once; the next relapse stays pending, and the pass tells it 5 minutes after.
      yield* round(monitorId, [])
      yield* round(monitorId, [...regions])
      expect(yield* statuses).toHaveLength(6)
      yield* TestClock.adjust("3 minutes")
      yield* automation.advanceAll
      expect(yield* statuses).toHaveLength(6)
      yield* TestClock.adjust("1 minute")
      yield* automation.advanceAll
      expect((yield* statuses).slice(5)).toEqual(["monitoring", "investigating"])
    }))

  it.effect("a template gives title, message and severity; a draft reaches no one until published", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const template = yield* client.incidentTemplates.create({
        payload: {
          name: "Payments",
          title: "Payments are failing",
          message: "Card payments fail.",
          severity: "critical"
        }
      })
      const { monitorId } = yield* setup("Payments", {
        incidentPolicy: "draft",
        incidentTemplateId: template.id,
        resolveAfterSeconds: 0
      })
      const mark = yield* outboxMark
      yield* round(monitorId, [...regions])
      const [draft] = yield* incidentsOf(monitorId)
      expect(draft).toMatchObject({
        title: "Payments are failing",
        severity: "critical",
        published: false,
        status: "investigating"
      })
      expect(draft!.message).toBe(
        "Card payments fail.\n\nOur checks fail from 3 of 3 regions: ap-south (timed out), eu-west (HTTP 503) and " +
          "us-east (timed out). We are investigating."
      )
      expect((yield* outboxSince(mark)).map((row) => row.event).filter((event) => !event.startsWith("monitor.")))
        .toEqual(["component.status_changed"])
      const hidden = yield* sendJson("GET", `/api/v1/status/incidents/${draft!.id}`)
      expect(hidden.status).toBe(404)

      // resolveAfterSeconds 0: recovered and resolved in the same pass, still a draft, still silent.
      yield* round(monitorId, [])
      const [resolved] = yield* incidentsOf(monitorId)
      expect(resolved!.updates.map((u) => u.status)).toEqual(["investigating", "monitoring", "resolved"])
      expect(resolved!.message).toBe("Our checks succeed again. This incident is resolved.")
      expect((yield* outboxSince(mark)).map((row) => row.event).filter((event) => !event.startsWith("monitor.")))
        .toEqual([
          "component.status_changed",
          "component.status_changed"
        ])
    }))

  it.effect("an operator takes an incident over: the automation adds updates but never resolves it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { monitorId } = yield* setup("Search", { resolveAfterSeconds: 0 })
      yield* round(monitorId, [...regions])
      const [opened] = yield* incidentsOf(monitorId)
      yield* client.incidents.addUpdate({
        params: { id: opened!.id },
        payload: { status: "identified", message: "A bad deploy; rolling back." }
      })
      expect((yield* incidentsOf(monitorId))[0]!.automation).toBe("handed_over")

      yield* round(monitorId, [])
      yield* TestClock.adjust("1 hour")
      yield* (yield* IncidentAutomation).advanceAll
      const [kept] = yield* incidentsOf(monitorId)
      // The recovery is told, in the operator's status; the incident stays open.
      expect(kept).toMatchObject({ status: "identified", message: expect.stringContaining("succeed again") })
      yield* round(monitorId, ["eu-west", "us-east"])
      expect((yield* incidentsOf(monitorId))[0]).toMatchObject({
        status: "identified",
        message: expect.stringMatching(/^The problem is back/)
      })

      // The operator resolves it while the monitor is still down: the outage is not reopened.
      yield* client.incidents.resolve({ params: { id: opened!.id }, payload: null })
      yield* round(monitorId, [...regions])
      yield* (yield* IncidentAutomation).advanceAll
      expect((yield* incidentsOf(monitorId)).map((i) => i.status)).toEqual(["resolved"])
      // Up, then down again: a new outage, a new incident.
      yield* round(monitorId, [])
      yield* round(monitorId, [...regions])
      expect((yield* incidentsOf(monitorId)).map((i) => i.status)).toEqual(["investigating", "resolved"])
    }))

  it.effect("policy off opens nothing; a deleted monitor hands its incident over; paused monitors move nothing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const quiet = yield* setup("Quiet", { incidentPolicy: "off" })
      yield* round(quiet.monitorId, [...regions])
      yield* (yield* IncidentAutomation).advanceAll
      expect(yield* incidentsOf(quiet.monitorId)).toEqual([])
      // Switched on while down: the next pass opens the incident for the outage under way.
      yield* client.monitors.update({
        params: { id: quiet.monitorId as never },
        payload: { incidentPolicy: "publish" }
      })
      yield* (yield* IncidentAutomation).advanceAll
      expect((yield* incidentsOf(quiet.monitorId)).map((i) => i.status)).toEqual(["investigating"])

      const gone = yield* setup("Gone")
      yield* round(gone.monitorId, [...regions])
      const [orphan] = yield* incidentsOf(gone.monitorId)
      yield* client.monitors.remove({ params: { id: gone.monitorId as never } })
      const [after] = (yield* client.incidents.list({ query: {} })).filter((i) => i.id === orphan!.id)
      expect(after).toMatchObject({ monitorId: null, automation: "handed_over", status: "investigating" })

      // Deleting the component deletes its monitors: their incidents are handed over too.
      const removed = yield* setup("Removed")
      yield* round(removed.monitorId, [...regions])
      const [left] = yield* incidentsOf(removed.monitorId)
      yield* client.components.remove({ params: { id: removed.component.id } })
      const [leftAfter] = (yield* client.incidents.list({ query: {} })).filter((i) => i.id === left!.id)
      expect(leftAfter).toMatchObject({ monitorId: null, automation: "handed_over" })

      const paused = yield* setup("Paused")
      yield* round(paused.monitorId, [...regions])
      yield* client.monitors.pause({ params: { id: paused.monitorId as never } })
      yield* TestClock.adjust("1 hour")
      yield* (yield* IncidentAutomation).advanceAll
      expect((yield* incidentsOf(paused.monitorId)).map((i) => i.status)).toEqual(["investigating"])
      // Only one open automatic incident per monitor, whatever writes it.
      const second = yield* sql`
        insert into incidents (title, status, severity, chosen_public, source, monitor_id, automation)
        values ('Second', 'investigating', 'minor', false, 'monitor', ${paused.monitorId}, 'active')`.pipe(Effect.flip)
      expect(sqlState(second)).toBe("23505") // unique_violation
    }))

  it.effect("monitor fields are checked: policy, template and resolveAfterSeconds", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Fields" } })
      const base = { componentId: component.id, type: "http", url: "https://a.example" }
      for (
        const [body, path] of [
          [{ incidentPolicy: "always" }, "incidentPolicy"],
          [{ resolveAfterSeconds: -1 }, "resolveAfterSeconds"],
          [{ resolveAfterSeconds: 86401 }, "resolveAfterSeconds"],
          [{ resolveAfterSeconds: 1.5 }, "resolveAfterSeconds"]
        ] as const
      ) {
        const refused = yield* sendJson("POST", "/api/v1/admin/monitors", { ...base, ...body })
        expect(refused.status).toBe(400)
        expect(JSON.stringify(refused.body)).toContain(path)
      }
      const unknownTemplate = yield* sendJson("POST", "/api/v1/admin/monitors", {
        ...base,
        incidentTemplateId: "no-such-template"
      })
      expect(unknownTemplate.status).toBe(404)
      const created = yield* sendJson("POST", "/api/v1/admin/monitors", base)
      expect(created.body).toMatchObject({ incidentPolicy: "off", incidentTemplateId: null, resolveAfterSeconds: 300 })
    }))

  it.effect("an outage's commits say what they touch: its component's status, the monitor, then the incident it opens", () =>
    Effect.gen(function*() {
      const { component, monitorId } = yield* setup("Touching")
      // What each commit announces (StateChanges' NOTIFY): the public snapshot reads again only
      // that, here the one component whose status moved.
      const touched: Array<unknown> = []
      const listening = yield* Deferred.make<void>()
      yield* listen(Redacted.make(yield* TestDatabaseUrl), "status_page_changes").pipe(
        Stream.runForEach((payload) =>
          payload === undefined
            ? Effect.asVoid(Deferred.succeed(listening, undefined))
            : Effect.sync(() => void touched.push(JSON.parse(payload).touched))
        ),
        Effect.forkScoped
      )
      yield* Deferred.await(listening)
      yield* round(monitorId, [...regions])
      const [incident] = yield* incidentsOf(monitorId)
      expect(incident).toBeDefined()
      yield* eventually(Effect.sync(() => touched.length), (n) => n >= 3)
      // The monitor's transition is announced too, for the dashboard's live stream (the public
      // snapshot ignores it).
      expect(touched).toEqual([{ components: [component.id] }, { monitors: true }, { incidents: [incident!.id] }])
    }))
})
