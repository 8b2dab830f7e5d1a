/**
 * The dispatcher role end to end: changes made through the API reach real HTTP receivers
 * (filtered by toggles and components, generic ones signed) and a verified subscriber's real
 * SMTP mailbox; failed deliveries are retried on the contract's schedule (TestClock).
 */
import { createHmac } from "node:crypto"

import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Dispatcher } from "../../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../../support/Eventually.js"
import { publicUrl, Smtp, withSmtp } from "../../support/MailStack.js"
import { outboxMark, outboxSince } from "../../support/Outbox.js"
import type { Answer, ReceivedRequest } from "../../support/Receiver.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { sendJson } from "../../support/TestServer.js"

const WithDispatcher = withSmtp(Dispatcher)

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    )
  )

const createWebhook = (body: Record<string, unknown>) => Effect.map(post("/api/v1/admin/webhooks", body), (r) => r.body)
const createComponent = (name: string) =>
  Effect.map(post("/api/v1/admin/components", { name }), (r) => r.body.id as string)

/** Real-time wait until `target` received `count` requests. */
const received = (target: { received: Array<ReceivedRequest> }, count: number) =>
  eventually(Effect.sync(() => target.received.slice()), (list) => list.length >= count)

/** The webhook's delivery as the database holds it once `attempts` attempts are recorded. */
const deliveryAfter = (webhookId: string, attempts: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    eventually(
      sql<{ id: string; status: string; attempts: number; nextAttemptAt: Date | null }>`
        select id, status, attempts, next_attempt_at from webhook_deliveries where webhook_id = ${webhookId}`,
      (rows) => rows.length === 1 && rows[0]!.attempts >= attempts
    )).pipe(Effect.map((rows) => rows[0]!))

/** The webhook's recorded attempts, oldest first, once there are `count`. */
const attemptsOf = (webhookId: string, count: number) =>
  eventually(
    Effect.map(
      sendJson("GET", `/api/v1/admin/webhooks/${webhookId}/deliveries`),
      (r) => (r.body as Array<{ attempt: number; statusCode: number; attemptedAt: string }>).toReversed()
    ),
    (attempts) => attempts.length >= count
  )

const answersInTurn = (...statuses: ReadonlyArray<number>): Answer => {
  let calls = 0
  return (request, response, raw) =>
    answerWith(statuses[Math.min(calls++, statuses.length - 1)]!)(request, response, raw)
}

const hmac = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

it.layer(WithDispatcher)("dispatcher", (it) => {
  it.effect("an incident reaches the matching webhooks, signed and in their format, and nobody else", () =>
    Effect.gen(function*() {
      const api = yield* createComponent("API")
      const web = yield* createComponent("Web")
      const genericTarget = yield* receiver(answerWith(200))
      const chatTarget = yield* receiver(answerWith(204))
      const otherComponent = yield* receiver(answerWith(200))
      const toggledOff = yield* receiver(answerWith(200))
      const inactive = yield* receiver(answerWith(200))
      const generic = yield* createWebhook({
        name: "generic",
        url: genericTarget.url,
        type: "generic",
        componentIds: [api]
      })
      yield* createWebhook({ name: "chat", url: chatTarget.url, type: "chat_a", componentIds: [api, web] })
      yield* createWebhook({ name: "web only", url: otherComponent.url, type: "generic", componentIds: [web] })
      yield* createWebhook({
        name: "no incidents",
        url: toggledOff.url,
        type: "chat_b",
        componentIds: [api],
        notifyOnIncident: false
      })
      yield* createWebhook({ name: "off", url: inactive.url, type: "chat_c", componentIds: [api], isActive: false })

      const mark = yield* outboxMark
      const incident = (yield* post("/api/v1/admin/incidents", {
        title: "API errors",
        message: "We are looking into it",
        severity: "major",
        componentIds: [api]
      })).body

      const [request] = yield* received(genericTarget, 1)
      expect(request!.headers["x-service-event"]).toBe("incident.created")
      expect(request!.headers["x-service-signature"]).toBe(hmac(generic.secret, request!.body))
      expect(request!.headers["webhook-id"]).toBe(request!.headers["x-service-delivery"])
      const [outboxRow] = yield* outboxSince(mark)
      const body = JSON.parse(request!.body)
      expect(body).toEqual({
        event: "incident.created",
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        organization: { name: "Status", url: publicUrl },
        // The contract's data: the incident as the outbox recorded it, timeline left out.
        data: outboxRow!.payload
      })
      expect(body.data).toMatchObject({
        id: incident.id,
        title: "API errors",
        status: "investigating",
        severity: "major"
      })

      const [chat] = yield* received(chatTarget, 1)
      expect(JSON.parse(chat!.body).attachments[0].fields).toBeDefined()
      expect(chat!.headers["x-service-signature"]).toBeUndefined()

      // The others had every chance: the matching ones arrived, give the rest a moment more.
      yield* realPause(500)
      expect([otherComponent, toggledOff, inactive].map((target) => target.received.length)).toEqual([0, 0, 0])
      expect(genericTarget.received).toHaveLength(1)
      expect(chatTarget.received).toHaveLength(1)
    }))

  it.effect("maintenance and component events carry the contract's data", () =>
    Effect.gen(function*() {
      const db = yield* createComponent("Database")
      const target = yield* receiver(answerWith(200))
      yield* createWebhook({ name: "db", url: target.url, type: "generic", componentIds: [db] })
      const window = (yield* post("/api/v1/admin/maintenance", {
        title: "Upgrade",
        scheduledStart: "2030-01-31T09:00:00Z",
        scheduledEnd: "2030-01-31T10:00:00Z",
        componentIds: [db]
      })).body
      yield* sendJson("PATCH", `/api/v1/admin/components/${db}/status`, { status: "degraded" })

      // Attempts start in event order; receipt order across concurrent requests is not promised.
      const events = (yield* received(target, 2)).map((request) => JSON.parse(request.body))
      const [scheduled, changed] = ["maintenance.scheduled", "component.status_changed"].map((name) =>
        events.find((event) => event.event === name)
      )
      expect(scheduled).toMatchObject({ event: "maintenance.scheduled", organization: { url: publicUrl } })
      expect(scheduled.data).toEqual({
        id: window.id,
        title: "Upgrade",
        status: "scheduled",
        scheduledStart: "2030-01-31T09:00:00.000Z",
        scheduledEnd: "2030-01-31T10:00:00.000Z",
        componentIds: [db]
      })
      expect(changed).toMatchObject({ event: "component.status_changed" })
      expect(changed.data).toEqual({ id: db, name: "Database", previousStatus: "operational", status: "degraded" })
    }))

  it.effect("a failed delivery is retried after 5 s and 10 s with the same delivery id", () =>
    Effect.gen(function*() {
      const cmp = yield* createComponent("Flaky")
      const target = yield* receiver(answersInTurn(500, 500, 200))
      const hook = yield* createWebhook({ name: "flaky", url: target.url, type: "generic", componentIds: [cmp] })
      yield* post("/api/v1/admin/incidents", { title: "Flaky", message: "m", componentIds: [cmp] })

      // Each failure sets the next attempt 5 s, then 10 s, after it (on the TestClock, which
      // stands still while an attempt runs). Moving the clock to that time, the pump, told of
      // the retry by the failed attempt, sends it again: not before it is due, and without
      // waiting for its idle poll (10 s after its last look).
      yield* received(target, 1)
      for (const [failed, delay] of [[1, 5_000], [2, 10_000]] as const) {
        const delivery = yield* deliveryAfter(hook.id, failed)
        expect(delivery).toMatchObject({ status: "pending", attempts: failed })
        const last = (yield* attemptsOf(hook.id, failed)).at(-1)!
        expect(last).toMatchObject({ attempt: failed, statusCode: 500 })
        const due = new Date(last.attemptedAt).getTime() + delay
        expect(delivery.nextAttemptAt?.getTime()).toBe(due)
        yield* TestClock.setTime(due)
        yield* TestClock.adjust("1 second")
        yield* received(target, failed + 1)
        const retry = (yield* attemptsOf(hook.id, failed + 1)).at(-1)!
        expect(new Date(retry.attemptedAt).getTime()).toBeGreaterThanOrEqual(due)
        expect(new Date(retry.attemptedAt).getTime()).toBeLessThanOrEqual(due + 1_000)
      }
      expect(target.received).toHaveLength(3)
      expect(new Set(target.received.map((request) => request.headers["webhook-id"])).size).toBe(1)
      expect(new Set(target.received.map((request) => request.body)).size).toBe(1)
      expect((yield* attemptsOf(hook.id, 3)).map((attempt) => attempt.statusCode)).toEqual([500, 500, 200])
      // Delivered: nothing is due any more.
      expect(yield* deliveryAfter(hook.id, 3)).toMatchObject({ status: "delivered", nextAttemptAt: null })
    }))

  it.effect("a verified subscriber is mailed about incidents; a pending one is not", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const before = smtp.messages.length
      yield* post("/api/v1/subscribe", { email: "reader@example.test" })
      yield* post("/api/v1/subscribe", { email: "pending@example.test" })
      const verification = (yield* smtp.waitFor(before + 2)).find((mail) =>
        mail.envelopeTo.includes("reader@example.test")
      )
      const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(verification!.parsed.text ?? "")![1]!
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)

      yield* post("/api/v1/admin/incidents", { title: "Login failures", message: "Investigating sign-in errors" })
      const mails = yield* eventually(
        Effect.sync(() => smtp.messages.slice(before + 2)),
        (list) => list.length >= 1
      )
      const [mail] = mails
      expect(mail!.envelopeTo).toEqual(["reader@example.test"])
      expect(mail!.parsed.subject).toContain("Login failures")
      expect(mail!.parsed.text).toContain("Investigating sign-in errors")
      expect(mail!.parsed.text).toContain(`${publicUrl}/unsubscribe?email=reader%40example.test&token=`)
      // mailparser folds List-* headers into one object: read the raw header line.
      expect(mail!.parsed.headerLines.map((line) => line.line)).toContain(
        "List-Unsubscribe-Post: List-Unsubscribe=One-Click"
      )

      // Component changes are not mailed, and the incident mail is not sent again. An incident
      // posted after the change is handed over after it (in outbox order), its mail claimed and
      // started with or after any mail of the change: its arrival is the only one since.
      const cmp = yield* createComponent("Quiet")
      yield* sendJson("PATCH", `/api/v1/admin/components/${cmp}/status`, { status: "degraded" })
      yield* post("/api/v1/admin/incidents", { title: "Quiet again", message: "After the change", componentIds: [cmp] })
      const next = yield* eventually(Effect.sync(() => smtp.messages.slice(before + 3)), (list) => list.length >= 1)
      expect(next.map((m) => m.parsed.subject)).toEqual([expect.stringContaining("Quiet again")])

      // Subscribers hear of what the public page shows: not of an incident on private components
      // only, but of one that also names a public component.
      const internal = Effect.map(post("/api/v1/admin/components", { name: "Internal", isPublic: false }), (r) =>
        r.body.id as string)
      const privateId = yield* internal
      yield* post("/api/v1/admin/incidents", {
        title: "Internal batch late",
        message: "Staff only",
        componentIds: [privateId]
      })
      yield* post("/api/v1/admin/incidents", {
        title: "Search slow",
        message: "Public too",
        componentIds: [privateId, cmp]
      })
      // Handed over after the private one, so its mail is the only one since.
      const later = yield* eventually(
        Effect.sync(() =>
          smtp.messages.slice(before + 4)
        ),
        (list) => list.length >= 1
      )
      expect(later.map((m) => m.parsed.subject)).toEqual([expect.stringContaining("Search slow")])
    }))

  it.effect("a refused mail is retried when due, 5 s later, without waiting for the pump's idle poll", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const sql = yield* SqlClient.SqlClient
      const email = "retried@example.test"
      const before = smtp.messages.length
      yield* post("/api/v1/subscribe", { email })
      const verification = (yield* smtp.waitFor(before + 1)).find((mail) => mail.envelopeTo.includes(email))
      const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(verification!.parsed.text ?? "")![1]!
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)

      smtp.refuse(email, 1)
      yield* post("/api/v1/admin/incidents", { title: "Mail retried", message: "m" })
      const [refused] = yield* eventually(
        sql<{ attempts: number; nextAttemptAt: Date }>`
          select m.attempts, m.next_attempt_at from mail_deliveries m join subscribers s on s.id = m.subscriber_id
          where s.email = ${email} and m.event_id is not null`,
        (rows) => rows[0]?.attempts === 1
      )
      // The pump last looked when the mail was enqueued; its idle poll would come 10 s later.
      // Told of the retry, it claims it when due (its due times are kept to 100 ms).
      yield* TestClock.setTime(refused!.nextAttemptAt.getTime() + 100)
      const mails = yield* eventually(
        Effect.sync(() => smtp.messages.filter((mail) => mail.envelopeTo.includes(email))),
        (list) => list.length >= 2
      )
      expect(mails.map((mail) => mail.parsed.subject)).toEqual([
        expect.stringContaining("Confirm"),
        expect.stringContaining("Mail retried")
      ])
    }))
})
