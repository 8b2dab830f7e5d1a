import { expect, it, layer } from "@effect/vitest"
import { DateTime, Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import {
  eventually as eventuallyInRealTime,
  eventuallyOnTestClock as eventually,
  realPause
} from "../support/Eventually.js"
import { scheduleSoon } from "../support/Maintenance.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, LiveTestServer, sendJson, TestServer, withMaintenanceClock } from "../support/TestServer.js"

const iso = (at: DateTime.Utc) => DateTime.formatIso(at)

it.layer(withMaintenanceClock(TestServer()))("maintenance", (it) => {
  it.effect("schedules, validates, updates partially and cancels softly", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "Database" } })
      const start = DateTime.makeUnsafe("2031-03-01T02:00:00Z")
      const end = DateTime.makeUnsafe("2031-03-01T04:00:00Z")
      const mark = yield* outboxMark
      const created = yield* sendJson("POST", "/api/v1/admin/maintenance", {
        title: "Database upgrade",
        scheduledStart: "2031-03-01T02:00:00Z",
        scheduledEnd: "2031-03-01T04:00:00Z",
        componentIds: [db.id]
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        title: "Database upgrade",
        description: "",
        status: "scheduled",
        scheduledStart: "2031-03-01T02:00:00.000Z",
        scheduledEnd: "2031-03-01T04:00:00.000Z",
        componentIds: [db.id]
      })
      const events = yield* outboxSince(mark)
      expect(events.map((e) => [e.event, e.payload, e.componentIds])).toEqual([[
        "maintenance.scheduled",
        {
          id: created.body.id,
          title: "Database upgrade",
          status: "scheduled",
          scheduledStart: "2031-03-01T02:00:00.000Z",
          scheduledEnd: "2031-03-01T04:00:00.000Z",
          componentIds: [db.id]
        },
        [db.id]
      ]])

      const id = created.body.id
      const moved = yield* client.maintenance.update({
        params: { id },
        payload: { description: "Minor version", scheduledEnd: DateTime.add(end, { hours: 1 }) }
      })
      expect(moved).toMatchObject({ title: "Database upgrade", description: "Minor version", status: "scheduled" })
      expect(iso(moved.scheduledEnd)).toBe("2031-03-01T05:00:00.000Z")
      expect(iso(moved.scheduledStart)).toBe(iso(start))

      const bad: ReadonlyArray<readonly [string, "POST" | "PUT", string, unknown]> = [
        ["end before start", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-02T00:00:00Z",
          scheduledEnd: "2031-01-01T00:00:00Z"
        }],
        ["end equals start", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-01T00:00:00Z",
          scheduledEnd: "2031-01-01T00:00:00Z"
        }],
        ["offset, not UTC", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-01T00:00:00+02:00",
          scheduledEnd: "2031-01-02T00:00:00Z"
        }],
        ["date only", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-01",
          scheduledEnd: "2031-01-02T00:00:00Z"
        }],
        ["impossible date", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-02-30T00:00:00Z",
          scheduledEnd: "2031-03-02T00:00:00Z"
        }],
        ["missing end", "POST", "/api/v1/admin/maintenance", { title: "x", scheduledStart: "2031-01-01T00:00:00Z" }],
        ["unknown component", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-01T00:00:00Z",
          scheduledEnd: "2031-01-02T00:00:00Z",
          componentIds: ["nope"]
        }],
        ["start moved after end", "PUT", `/api/v1/admin/maintenance/${id}`, { scheduledStart: "2031-03-01T06:00:00Z" }],
        ["blank title", "PUT", `/api/v1/admin/maintenance/${id}`, { title: " " }],
        ["NUL in the path id", "PUT", "/api/v1/admin/maintenance/%00", { title: "x" }],
        ["NUL in a component id", "POST", "/api/v1/admin/maintenance", {
          title: "x",
          scheduledStart: "2031-01-01T00:00:00Z",
          scheduledEnd: "2031-01-02T00:00:00Z",
          componentIds: ["\u0000"]
        }]
      ]
      for (const [label, method, url, body] of bad) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
        expect(typeof response.body.message, label).toBe("string")
        expect(response.body.issues, label).toEqual(
          expect.arrayContaining([expect.objectContaining({ path: expect.any(Array) })])
        )
      }
      // Rules across fields or against stored components name their paths like schema errors do.
      const endFirst = yield* sendJson("POST", "/api/v1/admin/maintenance", {
        title: "x",
        scheduledStart: "2031-01-02T00:00:00Z",
        scheduledEnd: "2031-01-01T00:00:00Z"
      })
      expect(endFirst.body).toEqual({
        _tag: "BadRequest",
        message: "scheduledEnd must be after scheduledStart",
        issues: [{ path: ["scheduledEnd"], message: "must be after scheduledStart" }]
      })
      const startMoved = yield* sendJson("PUT", `/api/v1/admin/maintenance/${id}`, {
        scheduledStart: "2031-03-01T06:00:00Z"
      })
      expect(startMoved.body.issues).toEqual([{ path: ["scheduledEnd"], message: "must be after scheduledStart" }])
      const unknown = yield* sendJson("PUT", `/api/v1/admin/maintenance/${id}`, { componentIds: [db.id, "nope"] })
      expect(unknown.body).toEqual({
        _tag: "BadRequest",
        message: "Unknown componentIds: \"nope\"",
        issues: [{ path: ["componentIds", 1], message: "unknown component \"nope\"" }]
      })

      const cancelled = yield* sendJson("DELETE", `/api/v1/admin/maintenance/${id}`)
      expect(cancelled.status).toBe(204)
      expect((yield* client.maintenance.get({ params: { id } })).status).toBe("cancelled")
      expect((yield* client.maintenance.list({ query: {} })).map((w) => w.id)).toContain(id)
      for (const [method, body] of [["DELETE", undefined], ["PUT", { title: "again" }]] as const) {
        const response = yield* sendJson(method, `/api/v1/admin/maintenance/${id}`, body)
        expect(response.status, method).toBe(409)
        expect(response.body._tag).toBe("Conflict")
      }
      for (const [method, body] of [["GET", undefined], ["PUT", { title: "x" }], ["DELETE", undefined]] as const) {
        const response = yield* sendJson(method, "/api/v1/admin/maintenance/nope", body)
        expect(response.status, method).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: "Maintenance \"nope\" was not found" })
      }
    }))

  it.effect("the clock starts and completes windows, and restores statuses an operator did not change", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const degraded = yield* client.components.create({ payload: { name: "Degraded", status: "degraded" } })
      const touched = yield* client.components.create({ payload: { name: "Touched" } })
      const window = yield* scheduleSoon("Network work", [degraded.id, touched.id])
      const mark = yield* outboxMark
      const statusOf = (id: string) =>
        Effect.map(client.components.list({ query: {} }), (list) => list.find((c) => c.id === id)?.status)

      yield* TestClock.adjust(Duration.seconds(59))
      expect((yield* client.maintenance.get({ params: { id: window.id } })).status).toBe("scheduled")
      yield* eventually(
        Effect.map(
          client.maintenance.get({ params: { id: window.id } }),
          (w) => w.status === "in_progress" || undefined
        )
      )
      expect(yield* statusOf(degraded.id)).toBe("maintenance")
      expect(yield* statusOf(touched.id)).toBe("maintenance")

      // The operator takes over one component during the window.
      yield* client.components.setStatus({ params: { id: touched.id }, payload: { status: "major_outage" } })

      yield* TestClock.adjust(Duration.minutes(9))
      yield* eventually(
        Effect.map(client.maintenance.get({ params: { id: window.id } }), (w) => w.status === "completed" || undefined)
      )
      expect(yield* statusOf(degraded.id)).toBe("degraded")
      expect(yield* statusOf(touched.id)).toBe("major_outage")

      const events = yield* outboxSince(mark)
      const summary = events.map((e) =>
        e.event === "component.status_changed"
          ? `${e.payload.name}: ${e.payload.previousStatus} -> ${e.payload.status}`
          : `${e.event} ${e.payload.status}`
      )
      // The two components enter maintenance in id order, which is random.
      expect(summary.slice(0, 2).sort()).toEqual([
        "Degraded: degraded -> maintenance",
        "Touched: operational -> maintenance"
      ])
      expect(summary.slice(2)).toEqual([
        "maintenance.started in_progress",
        "Touched: maintenance -> major_outage",
        "Degraded: maintenance -> degraded",
        "maintenance.completed completed"
      ])
      expect(events.at(-1)!.payload).toMatchObject({
        id: window.id,
        title: "Network work",
        componentIds: [degraded.id, touched.id].sort()
      })
      expect(events.at(-1)!.componentIds).toEqual([degraded.id, touched.id].sort())
    }))

  it.effect("a window ending on the tick another covering window starts hands over without leaving maintenance", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const cache = yield* client.components.create({ payload: { name: "Cache", status: "degraded" } })
      const now = yield* DateTime.now
      const handover = DateTime.add(now, { minutes: 5 })
      const windowOf = (title: string, scheduledStart: DateTime.Utc, scheduledEnd: DateTime.Utc) =>
        client.maintenance.create({ payload: { title, scheduledStart, scheduledEnd, componentIds: [cache.id] } })
      const first = yield* windowOf("First half", DateTime.add(now, { minutes: 1 }), handover)
      const second = yield* windowOf("Second half", handover, DateTime.add(now, { minutes: 10 }))
      const statusOf = (id: typeof first.id) => Effect.map(client.maintenance.get({ params: { id } }), (w) => w.status)
      const summarySince = (mark: string) =>
        Effect.map(outboxSince(mark), (events) =>
          events.map((e) =>
            e.event === "component.status_changed"
              ? `${e.payload.previousStatus} -> ${e.payload.status}`
              : `${e.event} ${e.payload.title}`
          ))

      yield* TestClock.adjust(Duration.minutes(1))
      yield* eventually(Effect.map(statusOf(first.id), (status) => status === "in_progress" || undefined))
      const mark = yield* outboxMark
      // One jump past the hand-over: the first end and the second start are due on the same tick.
      yield* TestClock.adjust(Duration.minutes(4))
      yield* eventually(Effect.map(
        Effect.all([statusOf(first.id), statusOf(second.id)]),
        ([a, b]) => (a === "completed" && b === "in_progress") || undefined
      ))
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === cache.id)?.status).toBe("maintenance")
      expect(yield* summarySince(mark)).toEqual(["maintenance.started Second half", "maintenance.completed First half"])

      // The second window gives back what the component showed before the first.
      yield* TestClock.adjust(Duration.minutes(5))
      yield* eventually(Effect.map(statusOf(second.id), (status) => status === "completed" || undefined))
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === cache.id)?.status).toBe("degraded")
      expect((yield* summarySince(mark)).slice(2)).toEqual([
        "maintenance -> degraded",
        "maintenance.completed Second half"
      ])
    }))

  it.effect("changing a running window's start or components is 409; cancelling it restores its components", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const now = yield* DateTime.now
      const window = yield* client.maintenance.create({
        payload: {
          title: "Deploy",
          scheduledStart: now,
          scheduledEnd: DateTime.add(now, { hours: 1 }),
          componentIds: [web.id]
        }
      })
      yield* eventually(
        Effect.map(
          client.maintenance.get({ params: { id: window.id } }),
          (w) => w.status === "in_progress" || undefined
        )
      )
      for (const body of [{ scheduledStart: iso(DateTime.add(now, { minutes: 5 })) }, { componentIds: [] }]) {
        expect((yield* sendJson("PUT", `/api/v1/admin/maintenance/${window.id}`, body)).status).toBe(409)
      }
      const longer = yield* client.maintenance.update({
        params: { id: window.id },
        payload: { scheduledEnd: DateTime.add(now, { hours: 2 }) }
      })
      expect(longer.status).toBe("in_progress")

      const mark = yield* outboxMark
      yield* client.maintenance.cancel({ params: { id: window.id }, query: {} })
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === web.id)?.status).toBe("operational")
      expect((yield* outboxSince(mark)).map((e) => `${e.event} ${e.payload.status}`)).toEqual([
        "component.status_changed operational",
        "maintenance.completed cancelled"
      ])
    }))
})

// No clock fiber: the transitions are run by hand, as one of several instances would.
it.layer(MaintenanceWindows.layer.pipe(Layer.provideMerge(TestServer())))(
  "maintenance on several instances",
  (it) => {
    it.effect("a window ending while another instance starts a covering window waits for that start", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const windows = yield* MaintenanceWindows
        const sql = yield* SqlClient.SqlClient
        const queue = yield* client.components.create({ payload: { name: "Queue", status: "degraded" } })
        const now = yield* DateTime.now
        const handover = DateTime.add(now, { minutes: 5 })
        const first = yield* client.maintenance.create({
          payload: { title: "First", scheduledStart: now, scheduledEnd: handover, componentIds: [queue.id] }
        })
        const second = yield* client.maintenance.create({
          payload: {
            title: "Second",
            scheduledStart: handover,
            scheduledEnd: DateTime.add(now, { minutes: 10 }),
            componentIds: [queue.id]
          }
        })
        yield* windows.runDue(now)
        expect((yield* client.maintenance.get({ params: { id: first.id } })).status).toBe("in_progress")
        const mark = yield* outboxMark

        // The other instance holds the second window while starting it (the component already
        // shows maintenance, so its start changes only the window's status).
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const otherInstance = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`select id from maintenance_windows where id = ${second.id} for update`
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
          yield* sql`update maintenance_windows set status = 'in_progress' where id = ${second.id}`
        })).pipe(Effect.forkChild)
        yield* Deferred.await(locked)
        const thisInstance = yield* Effect.forkChild(windows.runDue(handover))
        // Let it get as far as it goes: blocked on the lock, or done.
        for (let round = 0; round < 100; round++) {
          const [waiting] = yield* sql<{ count: number }>`
          select count(*)::int as count from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`
          if (waiting!.count > 0 || thisInstance.pollUnsafe() !== undefined) break
          yield* TestClock.withLive(Effect.sleep("20 millis"))
        }
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(otherInstance)
        yield* Fiber.join(thisInstance)

        expect((yield* client.maintenance.get({ params: { id: first.id } })).status).toBe("completed")
        expect((yield* client.components.list({ query: {} })).find((c) => c.id === queue.id)?.status).toBe(
          "maintenance"
        )
        expect((yield* outboxSince(mark)).map((e) => `${e.event} ${e.payload.status}`)).toEqual([
          "maintenance.completed completed"
        ])
      }))
  }
)

// The clock sleeps until the next start, end or reminder (at most 10 s); a change wakes it. Here
// the TestClock moves only as far as the window's start, never to the clock's own next look.
it.layer(withMaintenanceClock(TestServer()))("maintenance clock, woken by changes", (it) => {
  it.effect("a window created to start in 2 s starts 2 s later, though the clock last planned to sleep 10 s", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      // The clock's first pass found nothing: it sleeps 10 s of TestClock.
      yield* realPause(300)
      const now = yield* DateTime.now
      const window = yield* client.maintenance.create({
        payload: {
          title: "Soon",
          scheduledStart: DateTime.add(now, { seconds: 2 }),
          scheduledEnd: DateTime.add(now, { hours: 1 })
        }
      })
      yield* realPause(300)
      yield* TestClock.adjust("1999 millis")
      yield* realPause(300)
      expect((yield* client.maintenance.get({ params: { id: window.id } })).status).toBe("scheduled")
      yield* TestClock.adjust("1 millis")
      const started = yield* eventuallyInRealTime(
        Effect.map(client.maintenance.get({ params: { id: window.id } }), (w) => w.status),
        (status) => status === "in_progress"
      )
      expect(started).toBe("in_progress")
    }))

  it.effect("turning reminders on sends the reminder a window now needs at once", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const org = yield* client.organization.get()
      yield* client.organization.update({ params: { id: org.id }, payload: { maintenanceReminderHours: 0 } })
      const now = yield* DateTime.now
      const window = yield* client.maintenance.create({
        payload: {
          title: "Reminded",
          scheduledStart: DateTime.add(now, { hours: 2 }),
          scheduledEnd: DateTime.add(now, { hours: 3 })
        }
      })
      const mark = yield* outboxMark
      yield* realPause(300)
      // Nothing due for hours: the clock sleeps its 10 s; the TestClock does not move.
      yield* client.organization.update({ params: { id: org.id }, payload: { maintenanceReminderHours: 24 } })
      const reminders = yield* eventuallyInRealTime(
        Effect.map(outboxSince(mark), (events) => events.filter((e) => e.event === "maintenance.reminder")),
        (events) => events.length > 0
      )
      expect(reminders.map((e) => e.payload.id)).toEqual([window.id])
    }))
})

// Real time: the clock's own schedule, no TestClock.
layer(withMaintenanceClock(LiveTestServer()), { excludeTestServices: true })("maintenance clock in real time", (it) => {
  it.effect(
    "starts and completes a window within seconds, also one whose times have already passed",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const api = yield* client.components.create({ payload: { name: "API" } })
        const now = yield* DateTime.now
        const soon = yield* client.maintenance.create({
          payload: {
            title: "Soon",
            scheduledStart: DateTime.add(now, { seconds: 1 }),
            scheduledEnd: DateTime.add(now, { seconds: 4 }),
            componentIds: [api.id]
          }
        })
        const past = yield* client.maintenance.create({
          payload: {
            title: "Missed",
            scheduledStart: DateTime.subtract(now, { hours: 2 }),
            scheduledEnd: DateTime.subtract(now, { hours: 1 }),
            componentIds: [api.id]
          }
        })
        // A window only moves on, and each move sets its components in the same transaction: a
        // component read between two readings of the window shows what one of the states from
        // the first reading to the second gives it.
        const order: ReadonlyArray<string> = ["scheduled", "in_progress", "completed"]
        const componentIn: Record<string, string> = {
          scheduled: "operational",
          in_progress: "maintenance",
          completed: "operational"
        }
        const windowStatus = Effect.map(client.maintenance.get({ params: { id: soon.id } }), (w) => w.status)
        const seen = new Set<string>()
        const whileRunning: Array<string | undefined> = []
        const deadline = Date.now() + 15_000
        while (!seen.has("completed") && Date.now() < deadline) {
          const before = yield* windowStatus
          const component = (yield* client.components.list({ query: {} })).find((c) => c.id === api.id)?.status
          const after = yield* windowStatus
          seen.add(before).add(after)
          const states = order.slice(order.indexOf(before), order.indexOf(after) + 1)
          expect(states.map((state) => componentIn[state]), `${before} .. ${after}`).toContain(component)
          if (before === "in_progress" && after === "in_progress") whileRunning.push(component)
          yield* Effect.sleep("100 millis")
        }
        expect(seen).toContain("in_progress")
        expect(seen).toContain("completed")
        expect(whileRunning.length).toBeGreaterThan(0)
        expect((yield* client.maintenance.get({ params: { id: past.id } })).status).toBe("completed")
        expect((yield* client.components.list({ query: {} })).find((c) => c.id === api.id)?.status).toBe("operational")
        const events = yield* outboxSince("0")
        expect(events.filter((e) => e.payload.id === past.id).map((e) => e.event)).toEqual([
          "maintenance.scheduled",
          "maintenance.started",
          "maintenance.completed"
        ])
      }),
    30_000
  )
})
