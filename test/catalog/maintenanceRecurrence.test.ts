/**
 * Recurring maintenance against the real database: occurrences follow the organization's wall
 * clock, the next one appears when the previous one starts, and cancelling goes on with the
 * series or ends it. The maintenance clock's passes are run by hand at chosen instants.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"

import { MaintenanceWindows, maxPastStartDays } from "../../src/services/catalog/MaintenanceWindows.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const Stack = MaintenanceWindows.layer.pipe(Layer.provideMerge(TestServer()))

const setTimeZone = (timezone: string) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const org = yield* client.organization.get()
    yield* client.organization.update({ params: { id: org.id }, payload: { timezone } })
  })

/** Runs the clock's pass at `iso`. */
const tickAt = (iso: string) =>
  Effect.flatMap(MaintenanceWindows, (windows) => windows.runDue(DateTime.makeUnsafe(iso)))

/** The series' windows, in order, as `start–end status`. */
const seriesOf = (seriesId: string) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    return (yield* client.maintenance.list({ query: {} }))
      .filter((w) => w.seriesId === seriesId)
      .toSorted((a, b) => a.scheduledStart.epochMilliseconds - b.scheduledStart.epochMilliseconds)
  })

const summary = (
  windows: ReadonlyArray<{ scheduledStart: DateTime.Utc; scheduledEnd: DateTime.Utc; status: string }>
) =>
  windows.map((w) =>
    `${DateTime.formatIso(w.scheduledStart).slice(0, 16)}–${
      DateTime.formatIso(w.scheduledEnd).slice(11, 16)
    } ${w.status}`
  )

const createSeries = (body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const response = yield* sendJson("POST", "/api/v1/admin/maintenance", body)
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return response.body as { id: string; seriesId: string; recurrence: unknown }
  })

it.layer(Stack)("recurring maintenance", (it) => {
  it.effect("a weekly series keeps 02:00 Paris time across the change to summer time", () =>
    Effect.gen(function*() {
      yield* setTimeZone("Europe/Paris")
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "Weekly database" } })
      const mark = yield* outboxMark
      // Saturdays 02:00–04:00 Paris time; Paris moves to UTC+2 on Sunday 30 March 2031.
      const first = yield* createSeries({
        title: "Weekly backup",
        scheduledStart: "2031-03-22T01:00:00Z",
        scheduledEnd: "2031-03-22T03:00:00Z",
        componentIds: [db.id],
        recurrence: { frequency: "weekly", interval: 1 }
      })
      expect(first.seriesId).toBe(first.id)
      expect(first.recurrence).toEqual({ frequency: "weekly", interval: 1 })
      // Its place in the series is the service's own.
      expect(first).not.toHaveProperty("occurrence")
      expect(summary(yield* seriesOf(first.id))).toEqual(["2031-03-22T01:00–03:00 scheduled"])

      // The next occurrence appears when the first starts, not before.
      yield* tickAt("2031-03-22T00:59:59Z")
      expect(yield* seriesOf(first.id)).toHaveLength(1)
      yield* tickAt("2031-03-22T01:00:00Z")
      const afterFirst = yield* seriesOf(first.id)
      expect(summary(afterFirst)).toEqual([
        "2031-03-22T01:00–03:00 in_progress",
        "2031-03-29T01:00–03:00 scheduled"
      ])
      const second = afterFirst[1]!
      expect(second).toMatchObject({
        title: "Weekly backup",
        componentIds: [db.id],
        seriesId: first.id,
        recurrence: { frequency: "weekly", interval: 1 }
      })
      expect(second.id).not.toBe(first.id)
      const events = (yield* outboxSince(mark)).filter((e) => e.event.startsWith("maintenance."))
      // The pass a second before the start is inside the reminder horizon (24 hours).
      expect(events.map((e) => `${e.event} ${e.payload.id === first.id ? "first" : "second"}`)).toEqual([
        "maintenance.scheduled first",
        "maintenance.reminder first",
        "maintenance.started first",
        "maintenance.scheduled second"
      ])
      expect(events[3]!.payload).toMatchObject({ scheduledStart: "2031-03-29T01:00:00.000Z", componentIds: [db.id] })

      // The public list shows the series' next window.
      const publicList = (yield* sendJson("GET", "/api/v1/status/maintenance")).body as Array<any>
      expect(publicList.find((w) => w.id === second.id)).toMatchObject({
        seriesId: first.id,
        recurrence: { frequency: "weekly", interval: 1 },
        status: "scheduled"
      })

      yield* tickAt("2031-03-22T03:00:00Z")
      yield* tickAt("2031-03-29T01:00:00Z")
      // After the change 02:00 Paris is 00:00 UTC.
      expect(summary(yield* seriesOf(first.id))).toEqual([
        "2031-03-22T01:00–03:00 completed",
        "2031-03-29T01:00–03:00 in_progress",
        "2031-04-05T00:00–02:00 scheduled"
      ])
    }))

  it.effect("count and until end a series; missed occurrences are skipped", () =>
    Effect.gen(function*() {
      yield* setTimeZone("UTC")
      const counted = yield* createSeries({
        title: "Three times",
        scheduledStart: "2032-01-01T09:00:00Z",
        scheduledEnd: "2032-01-01T10:00:00Z",
        recurrence: { frequency: "daily", interval: 1, count: 3 }
      })
      const until = yield* createSeries({
        title: "Until the 15th",
        scheduledStart: "2032-01-01T12:00:00Z",
        scheduledEnd: "2032-01-01T13:00:00Z",
        recurrence: { frequency: "weekly", interval: 1, until: "2032-01-15T12:00:00Z" }
      })
      for (const day of ["01", "02", "03", "04"]) {
        yield* tickAt(`2032-01-${day}T09:30:00Z`)
        yield* tickAt(`2032-01-${day}T23:00:00Z`)
      }
      expect(summary(yield* seriesOf(counted.id))).toEqual([
        "2032-01-01T09:00–10:00 completed",
        "2032-01-02T09:00–10:00 completed",
        "2032-01-03T09:00–10:00 completed"
      ])
      yield* tickAt("2032-01-08T12:30:00Z")
      yield* tickAt("2032-01-15T12:30:00Z")
      yield* tickAt("2032-01-22T12:30:00Z")
      expect(summary(yield* seriesOf(until.id))).toEqual([
        "2032-01-01T12:00–13:00 completed",
        "2032-01-08T12:00–13:00 completed",
        "2032-01-15T12:00–13:00 completed"
      ])

      // The service was down for a week: the missed ones are not created, the next one to come is.
      const daily = yield* createSeries({
        title: "Daily",
        scheduledStart: "2032-02-01T09:00:00Z",
        scheduledEnd: "2032-02-01T10:00:00Z",
        recurrence: { frequency: "daily", interval: 1 }
      })
      yield* tickAt("2032-02-08T09:30:00Z")
      expect(summary(yield* seriesOf(daily.id))).toEqual([
        "2032-02-01T09:00–10:00 completed",
        "2032-02-08T09:00–10:00 scheduled"
      ])
    }))

  it.effect("cancelling one occurrence keeps the series going; ?series=true ends it", () =>
    Effect.gen(function*() {
      yield* setTimeZone("UTC")
      const client = yield* ApiClient
      const web = yield* client.components.create({ payload: { name: "Series web" } })
      const first = yield* createSeries({
        title: "Deploy",
        scheduledStart: "2033-01-03T09:00:00Z",
        scheduledEnd: "2033-01-03T10:00:00Z",
        componentIds: [web.id],
        recurrence: { frequency: "weekly", interval: 2 }
      })
      const mark = yield* outboxMark
      expect((yield* sendJson("DELETE", `/api/v1/admin/maintenance/${first.id}`)).status).toBe(204)
      const afterCancel = yield* seriesOf(first.id)
      expect(summary(afterCancel)).toEqual([
        "2033-01-03T09:00–10:00 cancelled",
        "2033-01-17T09:00–10:00 scheduled"
      ])
      expect((yield* outboxSince(mark)).map((e) => `${e.event} ${e.payload.scheduledStart}`)).toEqual([
        "maintenance.scheduled 2033-01-17T09:00:00.000Z"
      ])

      // The second runs; ending the series from it cancels it (its component comes back) and the third.
      yield* tickAt("2033-01-17T09:00:00Z")
      const running = yield* seriesOf(first.id)
      expect(summary(running).slice(1)).toEqual([
        "2033-01-17T09:00–10:00 in_progress",
        "2033-01-31T09:00–10:00 scheduled"
      ])
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === web.id)?.status).toBe("maintenance")
      const ended = yield* sendJson("DELETE", `/api/v1/admin/maintenance/${running[1]!.id}?series=true`)
      expect(ended.status).toBe(204)
      expect(summary(yield* seriesOf(first.id))).toEqual([
        "2033-01-03T09:00–10:00 cancelled",
        "2033-01-17T09:00–10:00 cancelled",
        "2033-01-31T09:00–10:00 cancelled"
      ])
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === web.id)?.status).toBe("operational")
      yield* tickAt("2033-03-01T00:00:00Z")
      expect(yield* seriesOf(first.id)).toHaveLength(3)

      // On a one-off window series=true is a plain cancel.
      const oneOff = yield* createSeries({
        title: "Once",
        scheduledStart: "2033-05-01T09:00:00Z",
        scheduledEnd: "2033-05-01T10:00:00Z"
      })
      expect(oneOff).toMatchObject({ recurrence: null, seriesId: null })
      expect((yield* sendJson("DELETE", `/api/v1/admin/maintenance/${oneOff.id}?series=true`)).status).toBe(204)
      expect((yield* client.maintenance.get({ params: { id: oneOff.id as any } })).status).toBe("cancelled")
    }))

  it.effect("refuses bad rules (400 naming the field), and changing a series' rule", () =>
    Effect.gen(function*() {
      const window = { title: "x", scheduledStart: "2034-01-01T00:00:00Z", scheduledEnd: "2034-01-01T01:00:00Z" }
      const bad: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>]> = [
        [{ frequency: "yearly", interval: 1 }, ["recurrence", "frequency"]],
        [{ frequency: "daily", interval: 0 }, ["recurrence", "interval"]],
        [{ frequency: "daily", interval: 53 }, ["recurrence", "interval"]],
        [{ frequency: "daily", interval: 1.5 }, ["recurrence", "interval"]],
        [{ frequency: "daily" }, ["recurrence", "interval"]],
        [{ frequency: "daily", interval: 1, count: 0 }, ["recurrence", "count"]],
        [{ frequency: "daily", interval: 1, count: 1001 }, ["recurrence", "count"]],
        [{ frequency: "daily", interval: 1, until: "2034-02-01" }, ["recurrence", "until"]],
        [{ frequency: "daily", interval: 1, until: "2033-12-31T00:00:00Z" }, ["recurrence", "until"]],
        ["weekly", ["recurrence"]]
      ]
      for (const [recurrence, path] of bad) {
        const response = yield* sendJson("POST", "/api/v1/admin/maintenance", { ...window, recurrence })
        expect(response.status, JSON.stringify(recurrence)).toBe(400)
        expect(typeof response.body.message).toBe("string")
        expect(response.body.issues.map((issue: { path: unknown }) => issue.path), JSON.stringify(recurrence))
          .toContainEqual(path)
      }

      const series = yield* createSeries({ ...window, recurrence: { frequency: "monthly", interval: 1, count: 12 } })
      for (const recurrence of [null, { frequency: "daily", interval: 1 }]) {
        const response = yield* sendJson("PUT", `/api/v1/admin/maintenance/${series.id}`, { recurrence })
        expect(response.status).toBe(400)
        expect(response.body.issues).toEqual([expect.objectContaining({
          path: ["recurrence"],
          message: "cannot change: cancel the rest of the series (?series=true) and schedule a new one"
        })])
      }
      const badQuery = yield* sendJson("DELETE", `/api/v1/admin/maintenance/${series.id}?series=yes`)
      expect(badQuery.status).toBe(400)
      expect((yield* sendJson("GET", `/api/v1/admin/maintenance/${series.id}`)).body.status).toBe("scheduled")
    }))

  it.effect("refuses a start more than a year in the past (a daily series from year 1), on create and on a move", () =>
    Effect.gen(function*() {
      const tooOld = {
        _tag: "BadRequest",
        message: `scheduledStart must not be more than ${maxPastStartDays} days in the past`,
        issues: [{ path: ["scheduledStart"], message: `must not be more than ${maxPastStartDays} days in the past` }]
      }
      const fromYearOne = yield* sendJson("POST", "/api/v1/admin/maintenance", {
        title: "Since year 1",
        scheduledStart: "0001-01-01T09:00:00Z",
        scheduledEnd: "0001-01-01T10:00:00Z",
        recurrence: { frequency: "daily", interval: 1 }
      })
      expect(fromYearOne.status).toBe(400)
      expect(fromYearOne.body).toEqual(tooOld)

      const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString()
      const justOver = yield* sendJson("POST", "/api/v1/admin/maintenance", {
        title: "Too old",
        scheduledStart: daysAgo(maxPastStartDays + 1),
        scheduledEnd: daysAgo(maxPastStartDays - 1)
      })
      expect(justOver.status).toBe(400)
      expect(justOver.body).toEqual(tooOld)
      // Within the bound a past window is taken (it completes at the clock's next pass).
      const recent = yield* createSeries({
        title: "Recorded",
        scheduledStart: daysAgo(maxPastStartDays - 1),
        scheduledEnd: daysAgo(maxPastStartDays - 2)
      })

      const later = yield* createSeries({
        title: "Moved back",
        scheduledStart: "2034-06-01T00:00:00Z",
        scheduledEnd: "2034-06-01T01:00:00Z",
        recurrence: { frequency: "daily", interval: 1 }
      })
      const moved = yield* sendJson("PUT", `/api/v1/admin/maintenance/${later.id}`, {
        scheduledStart: "0001-01-01T00:00:00Z"
      })
      expect(moved.status).toBe(400)
      expect(moved.body).toEqual(tooOld)
      // Other changes of a window that started long ago stay possible.
      const renamed = yield* sendJson("PUT", `/api/v1/admin/maintenance/${recent.id}`, { title: "Renamed" })
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
    }))
})
