/**
 * Maintenance reminders end to end: the maintenance clock's pass, run by hand at chosen
 * instants, writes one `maintenance.reminder` per window when its start comes within the
 * organization's `maintenanceReminderHours`; the dispatcher takes it to every webhook format and
 * to verified subscribers' real SMTP mailbox (public windows only). Never twice: not when two
 * clocks run the pass at once, not when a pass runs again after a restart.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import type { MaintenanceId } from "../../src/domain/Maintenance.js"
import { MaintenanceWindows } from "../../src/services/catalog/MaintenanceWindows.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../support/Eventually.js"
import { Smtp, withSmtp } from "../support/MailStack.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import type { ReceivedRequest } from "../support/Receiver.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { ApiClient, sendJson } from "../support/TestServer.js"

const Stack = withSmtp(Layer.merge(Dispatcher, MaintenanceWindows.layer))

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    )
  )

const setOrganization = (payload: { maintenanceReminderHours?: number; timezone?: string }) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const org = yield* client.organization.get()
    yield* client.organization.update({ params: { id: org.id }, payload })
  })

/**
 * The maintenance clock's pass at `iso`. The passes are run at chosen instants, years after the
 * TestClock's now (which the API reads when a window is scheduled): moving the TestClock years
 * on would run the stack's once-a-second fibers for every second in between.
 */
const pass = (iso: string) => Effect.flatMap(MaintenanceWindows, (windows) => windows.runDue(DateTime.makeUnsafe(iso)))

/** The pass of another instance: a MaintenanceWindows of its own, as a second process or a restarted one has. */
const passOfAnotherInstance = (iso: string) => pass(iso).pipe(Effect.provide(MaintenanceWindows.layer, { local: true }))

const createWindow = (title: string, start: string, end: string, componentIds: ReadonlyArray<string>) =>
  Effect.map(
    post("/api/v1/admin/maintenance", { title, scheduledStart: start, scheduledEnd: end, componentIds }),
    (r) => r.body.id as MaintenanceId
  )

/** The reminders in the outbox since `mark`, as the ids of their windows. */
const remindersSince = (mark: string) =>
  Effect.map(
    outboxSince(mark),
    (rows) => rows.filter((row) => row.event === "maintenance.reminder").map((row) => row.payload.id as string)
  )

const remindersTo = (target: { received: Array<ReceivedRequest> }) =>
  target.received.filter((request) => request.headers["x-service-event"] === "maintenance.reminder")

const subscribe = (email: string) =>
  Effect.gen(function*() {
    const smtp = yield* Smtp
    const before = smtp.messages.length
    yield* post("/api/v1/subscribe", { email })
    const [verification] = yield* smtp.waitFor(before + 1)
    const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(verification!.parsed.text ?? "")![1]!
    expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)
  })

const mailsTo = (email: string) =>
  Effect.map(Smtp, (smtp) => smtp.messages.filter((mail) => mail.envelopeTo.includes(email)))

it.layer(Stack)("maintenance reminders", (it) => {
  it.effect("one reminder per window to every webhook format and by mail, never twice", () =>
    Effect.gen(function*() {
      yield* setOrganization({ maintenanceReminderHours: 24, timezone: "Europe/Paris" })
      yield* subscribe("reader@example.test")
      const cmp = (yield* post("/api/v1/admin/components", { name: "Reminded API" })).body.id as string
      const hidden = (yield* post("/api/v1/admin/components", { name: "Back office", isPublic: false })).body
        .id as string
      const types = ["generic", "chat_a", "chat_b", "chat_c"] as const
      const targets = yield* Effect.forEach(types, () => receiver(answerWith(200)))
      yield* Effect.forEach(types, (type, i) =>
        post("/api/v1/admin/webhooks", { name: type, url: targets[i]!.url, type, componentIds: [cmp] }))
      const staff = yield* receiver(answerWith(200))
      yield* post("/api/v1/admin/webhooks", { name: "staff", url: staff.url, type: "generic", componentIds: [hidden] })

      const upgrade = yield* createWindow("Database upgrade", "2031-05-03T00:00:00Z", "2031-05-03T02:00:00Z", [cmp])
      const internal = yield* createWindow("Back-office move", "2031-05-03T00:00:00Z", "2031-05-03T01:00:00Z", [
        hidden
      ])
      const cancelled = yield* createWindow("Called off", "2031-05-02T12:00:00Z", "2031-05-02T13:00:00Z", [cmp])
      expect((yield* sendJson("DELETE", `/api/v1/admin/maintenance/${cancelled}`)).status).toBe(204)
      const mark = yield* outboxMark

      // A second before the horizon reaches the start: nothing yet.
      yield* pass("2031-05-01T23:59:59Z")
      expect(yield* remindersSince(mark)).toEqual([])

      // At the horizon two clocks run the pass at once: each window is reminded once.
      yield* Effect.all([pass("2031-05-02T00:00:00Z"), passOfAnotherInstance("2031-05-02T00:00:00Z")], {
        concurrency: 2
      })
      const reminders = yield* outboxSince(mark)
      expect(reminders.map((row) => [row.event, row.payload.id]).toSorted()).toEqual(
        [["maintenance.reminder", internal], ["maintenance.reminder", upgrade]].toSorted()
      )
      expect(reminders.find((row) =>
        row.payload.id === upgrade
      )).toMatchObject({
        payload: {
          id: upgrade,
          title: "Database upgrade",
          status: "scheduled",
          scheduledStart: "2031-05-03T00:00:00.000Z",
          scheduledEnd: "2031-05-03T02:00:00.000Z",
          componentIds: [cmp]
        },
        componentIds: [cmp]
      })

      // A restarted instance's pass, then later ones up to the start, remind nobody again.
      yield* passOfAnotherInstance("2031-05-02T00:00:00Z")
      yield* pass("2031-05-02T23:00:00Z")
      expect((yield* remindersSince(mark)).toSorted()).toEqual([internal, upgrade].toSorted())

      // Each format got the reminder once; the private window reached the webhook of its component.
      yield* TestClock.adjust(Duration.seconds(1))
      for (const target of [...targets, staff]) {
        yield* eventually(Effect.sync(() => remindersTo(target)), (r) => r.length >= 1)
      }
      const [generic, slack, discord, teams] = targets.map((target) => JSON.parse(remindersTo(target)[0]!.body))
      expect(generic).toMatchObject({ event: "maintenance.reminder", data: { id: upgrade, title: "Database upgrade" } })
      expect(slack.attachments[0].title).toBe("Maintenance starts soon: Database upgrade")
      expect(discord.embeds[0].title).toBe("Maintenance starts soon: Database upgrade")
      expect(JSON.stringify(teams)).toContain("Maintenance starts soon: Database upgrade")
      expect(JSON.parse(remindersTo(staff)[0]!.body).data).toMatchObject({ id: internal, title: "Back-office move" })

      // One mail, about the public window only, with its start in the organization's time zone.
      const mails = yield* eventually(
        Effect.map(
          mailsTo("reader@example.test"),
          (list) => list.filter((m) => m.parsed.subject?.includes("Reminder"))
        ),
        (list) => list.length >= 1
      )
      expect(mails.map((mail) => mail.parsed.subject)).toEqual([
        "[Status] Reminder: scheduled maintenance Database upgrade starts 3 May 2031, 02:00 CEST"
      ])
      expect(mails[0]!.parsed.text).toContain("Ends: 3 May 2031, 04:00 CEST")

      yield* realPause(500)
      for (const target of [...targets, staff]) expect(remindersTo(target)).toHaveLength(1)
      const reminderMails = (yield* mailsTo("reader@example.test")).filter((m) =>
        m.parsed.subject?.includes("Reminder")
      )
      expect(reminderMails).toHaveLength(1)
    }))

  it.effect("0 turns reminders off; turned on again, a window inside the horizon is reminded", () =>
    Effect.gen(function*() {
      yield* setOrganization({ maintenanceReminderHours: 0 })
      const id = yield* createWindow("Quiet upgrade", "2031-06-03T00:00:00Z", "2031-06-03T01:00:00Z", [])
      const mark = yield* outboxMark
      yield* pass("2031-06-02T00:00:00Z")
      yield* pass("2031-06-02T23:00:00Z")
      expect(yield* remindersSince(mark)).toEqual([])

      yield* setOrganization({ maintenanceReminderHours: 2 })
      yield* pass("2031-06-02T23:00:00Z")
      yield* pass("2031-06-02T23:00:01Z")
      expect(yield* remindersSince(mark)).toEqual([id])
      yield* setOrganization({ maintenanceReminderHours: 24 })
    }))

  it.effect("a window scheduled inside the horizon gets none; one whose start moves is reminded of the new start", () =>
    Effect.gen(function*() {
      yield* setOrganization({ maintenanceReminderHours: 24 })
      const client = yield* ApiClient
      const mark = yield* outboxMark
      // Two hours ahead of the (Test)clock the API schedules by: inside the horizon already.
      const now = yield* DateTime.now
      const soon = yield* createWindow(
        "Short notice",
        DateTime.formatIso(DateTime.add(now, { hours: 2 })),
        DateTime.formatIso(DateTime.add(now, { hours: 3 })),
        []
      )
      const later = yield* createWindow("Planned", "2031-07-03T00:00:00Z", "2031-07-03T01:00:00Z", [])
      yield* pass(DateTime.formatIso(DateTime.add(now, { minutes: 1 })))
      expect(yield* remindersSince(mark)).toEqual([])

      yield* pass("2031-07-02T00:00:00Z")
      expect(yield* remindersSince(mark)).toEqual([later])

      // Another title changes nothing; a later start is reminded again when it comes near.
      yield* client.maintenance.update({ params: { id: later }, payload: { title: "Planned, renamed" } })
      yield* pass("2031-07-02T00:00:01Z")
      expect(yield* remindersSince(mark)).toEqual([later])
      yield* client.maintenance.update({
        params: { id: later },
        payload: {
          scheduledStart: DateTime.makeUnsafe("2031-07-05T00:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-07-05T01:00:00Z")
        }
      })
      yield* pass("2031-07-02T00:00:02Z")
      expect(yield* remindersSince(mark)).toEqual([later])
      yield* pass("2031-07-04T00:00:00Z")
      const rows = (yield* outboxSince(mark)).filter((row) => row.event === "maintenance.reminder")
      expect(rows.map((row) => [row.payload.id, row.payload.title, row.payload.scheduledStart])).toEqual([
        [later, "Planned", "2031-07-03T00:00:00.000Z"],
        [later, "Planned, renamed", "2031-07-05T00:00:00.000Z"]
      ])
      expect(rows.some((row) => row.payload.id === soon)).toBe(false)

      // A daily series: its next occurrence is scheduled when the previous one starts, a day
      // ahead, so inside the horizon: its `maintenance.scheduled` is the readers' notice.
      const daily = (yield* post("/api/v1/admin/maintenance", {
        title: "Nightly",
        scheduledStart: "2031-07-10T00:00:00Z",
        scheduledEnd: "2031-07-10T01:00:00Z",
        recurrence: { frequency: "daily", interval: 1 }
      })).body.id as string
      const seriesMark = yield* outboxMark
      for (const instant of ["2031-07-09T00:00:00Z", "2031-07-10T00:00:00Z", "2031-07-10T01:00:00Z"]) {
        yield* pass(instant)
      }
      const series = (yield* outboxSince(seriesMark)).filter((row) => row.payload.title === "Nightly").map((row) =>
        `${row.event} ${row.payload.id === daily ? "first" : row.payload.scheduledStart}`
      )
      expect(series).toEqual([
        "maintenance.reminder first",
        "maintenance.started first",
        "maintenance.scheduled 2031-07-11T00:00:00.000Z",
        "maintenance.completed first"
      ])
    }))
})
