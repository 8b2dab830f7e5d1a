import { createHash } from "node:crypto"

import { expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient, type SqlError } from "effect/sql"
import { TestClock } from "effect/testing"

import { MailDeliveries } from "../../src/services/notifications/mail/MailDeliveries.js"
import { publicUrl, Smtp, withSmtp } from "../support/MailStack.js"
import type { CapturedMail } from "../support/SmtpCapture.js"
import { ApiClient, sendJson } from "../support/TestServer.js"
import { mailedEvents, sampleEvents } from "./SampleEvents.js"

const WithMail = withSmtp(MailDeliveries.layer)

/** The mails to `email` so far, waiting until there are `count`. */
const mailsTo = (email: string, count: number) =>
  Effect.gen(function*() {
    const smtp = yield* Smtp
    const deadline = Date.now() + 5000
    let found: ReadonlyArray<CapturedMail> = []
    while (Date.now() < deadline) {
      found = (yield* smtp.waitFor(0)).filter((mail) => mail.envelopeTo.includes(email))
      if (found.length >= count) break
      yield* Effect.promise(() => new Promise((done) => setTimeout(done, 20)))
    }
    return found
  })

const verifyToken = (mail: CapturedMail) => {
  const match = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? "")
  expect(match, "verification link in the text part").not.toBeNull()
  return match![1]!
}

/**
 * Subscribers are mailed only about public incidents and windows, so the incidents and windows
 * that hand-made events name are stored, public, before the events are handed over.
 */
const storePublicSubjects = (events: ReadonlyArray<{ readonly event: string; readonly data: unknown }>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.forEach(events, ({ data, event }): Effect.Effect<unknown, SqlError.SqlError> => {
        const id = (data as { readonly id: string }).id
        return event.startsWith("incident.")
          ? sql`insert into incidents (id, title, status, severity, chosen_public)
              values (${id}, ${id}, 'investigating', 'minor', true) on conflict do nothing`
          : event.startsWith("maintenance.")
          ? sql`insert into maintenance_windows (id, title, scheduled_start, scheduled_end, is_public)
              values (${id}, ${id}, now(), now() + interval '1 hour', true) on conflict do nothing`
          : Effect.void
      }, { discard: true })
  )

it.layer(WithMail)("subscriptions", (it) => {
  it.effect("a mail the server refuses is sent again after 5 s and 10 s, and given up after the third retry", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const mail = yield* MailDeliveries
      const smtp = yield* Smtp
      const sql = yield* SqlClient.SqlClient
      yield* client.subscriptions.subscribe({ payload: { email: "erin@example.test" } })
      yield* client.subscriptions.verify({
        params: { token: verifyToken((yield* mailsTo("erin@example.test", 1))[0]!) }
      })
      const event = (id: string) => ({
        id,
        event: "incident.created" as const,
        occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
        componentIds: [],
        data: {
          id: `inc-${id}`,
          title: `Retry ${id}`,
          status: "investigating" as const,
          severity: "minor" as const,
          componentIds: [],
          message: "m"
        }
      })
      const erin = (eventId: string) =>
        Effect.map(
          sql<{ status: string; attempts: number; lastError: string | null }>`
            select m.status, m.attempts, m.last_error from mail_deliveries m join subscribers s on s.id = m.subscriber_id
            where m.event_id = ${eventId} and s.email = 'erin@example.test'`,
          (rows) => rows[0]!
        )
      // What the dispatcher's mail pump does: send whatever is due.
      const sendDue = Effect.flatMap(mail.claimDue(100), (due) => Effect.forEach(due, mail.attempt, { discard: true }))

      smtp.refuse("erin@example.test", 2)
      yield* storePublicSubjects([event("evt_retry")])
      yield* mail.enqueueMany([event("evt_retry")])
      yield* sendDue
      expect(yield* erin("evt_retry")).toMatchObject({
        status: "pending",
        attempts: 1,
        lastError: expect.stringMatching(/^(?!.*erin@).*451.*<address>/s)
      })
      yield* TestClock.adjust("4900 millis")
      yield* sendDue
      expect((yield* erin("evt_retry")).attempts).toBe(1)
      yield* TestClock.adjust("100 millis")
      yield* sendDue
      expect(yield* erin("evt_retry")).toMatchObject({ status: "pending", attempts: 2 })
      yield* TestClock.adjust("10 seconds")
      yield* sendDue
      expect(yield* erin("evt_retry")).toMatchObject({ status: "sent", attempts: 3 })
      expect((yield* mailsTo("erin@example.test", 2)).map((m) => m.parsed.subject)).toContain(
        "[Status] New incident: Retry evt_retry"
      )

      // Refused every time: the first attempt and three retries, 5, 10 and 20 s apart, then failed.
      smtp.refuse("erin@example.test", 4)
      yield* storePublicSubjects([event("evt_gone")])
      yield* mail.enqueueMany([event("evt_gone")])
      for (const wait of [0, 5, 10, 20]) {
        yield* TestClock.adjust(`${wait} seconds`)
        yield* sendDue
      }
      expect(yield* erin("evt_gone")).toMatchObject({
        status: "failed",
        attempts: 4,
        lastError: expect.stringMatching(/^(?!.*erin@).*451.*<address>/s)
      })
    }))

  it.effect("double opt-in: the same 202 whatever the state, a verify link by mail, then verified once", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const first = yield* sendJson("POST", "/api/v1/subscribe", { email: "  Alice@Example.TEST " })
      expect(first.status).toBe(202)
      expect(first.body).toEqual({ message: expect.any(String) })

      const [mail] = yield* mailsTo("alice@example.test", 1)
      expect(mail!.parsed.from?.text).toBe("status@example.test")
      expect(mail!.parsed.subject).toBe("Confirm your subscription to Status status updates")
      const token = verifyToken(mail!)
      expect(token.length).toBeGreaterThanOrEqual(43)
      expect(mail!.parsed.text).toContain(`${publicUrl}/subscribe/verify/${token}`)
      expect(mail!.parsed.html).toContain(`href="${publicUrl}/subscribe/verify/${token}"`)

      const pending = yield* client.subscribers.list({ query: {} })
      expect(pending.find((s) => s.email === "alice@example.test")).toMatchObject({ verified: false, verifiedAt: null })
      // The database holds the token's SHA-256 only, never the token itself.
      const sql = yield* SqlClient.SqlClient
      const [stored] = yield* sql<{ verifyTokenHash: string; row: string }>`
        select verify_token_hash, row_to_json(s)::text as row from subscribers s where email = 'alice@example.test'`
      expect(stored!.verifyTokenHash).toBe(createHash("sha256").update(token).digest("hex"))
      expect(stored!.row).not.toContain(token)

      expect(yield* client.subscriptions.verify({ params: { token } })).toEqual({
        verified: true,
        email: "alice@example.test"
      })
      const again = yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)
      expect(again.status).toBe(404)
      expect(again.body._tag).toBe("NotFound")

      const listed = yield* sendJson("GET", "/api/v1/admin/subscribers")
      const alice = listed.body.find((s: { email: string }) => s.email === "alice@example.test")
      expect(Object.keys(alice).sort()).toEqual([
        "componentIds",
        "createdAt",
        "email",
        "id",
        "locale",
        "pageId",
        "verified",
        "verifiedAt"
      ])
      expect(alice).toMatchObject({ verified: true, verifiedAt: expect.stringMatching(/Z$/), componentIds: null })
      expect(JSON.stringify(listed.body)).not.toContain(token)

      // Verified already: the same answer, and no new mail.
      const repeat = yield* sendJson("POST", "/api/v1/subscribe", { email: "alice@example.test" })
      expect(repeat).toMatchObject({ status: 202, body: first.body })
      yield* Effect.promise(() => new Promise((done) => setTimeout(done, 300)))
      expect(yield* mailsTo("alice@example.test", 1)).toHaveLength(1)
    }))

  it.effect("a new request for a pending address replaces its link; links expire after 48 hours", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const first = yield* sendJson("POST", "/api/v1/subscribe", { email: "bob@example.test" })
      const firstToken = verifyToken((yield* mailsTo("bob@example.test", 1))[0]!)
      // Pending: the same answer as for a new address.
      expect(yield* sendJson("POST", "/api/v1/subscribe", { email: "bob@example.test" })).toMatchObject({
        status: 202,
        body: first.body
      })
      const secondToken = verifyToken((yield* mailsTo("bob@example.test", 2))[1]!)
      expect(secondToken).not.toBe(firstToken)
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${firstToken}`)).status).toBe(404)

      yield* TestClock.adjust("48 hours")
      yield* TestClock.adjust("1 second")
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${secondToken}`)).status).toBe(404)

      yield* client.subscriptions.subscribe({ payload: { email: "bob@example.test" } })
      const thirdToken = verifyToken((yield* mailsTo("bob@example.test", 3))[2]!)
      expect((yield* client.subscriptions.verify({ params: { token: thirdToken } })).email).toBe("bob@example.test")
    }))

  it.effect("notification mail carries the unsubscribe link and one-click headers; both unsubscribe", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const mail = yield* MailDeliveries
      for (const email of ["carol@example.test", "dave@example.test"]) {
        yield* client.subscriptions.subscribe({ payload: { email } })
        yield* client.subscriptions.verify({ params: { token: verifyToken((yield* mailsTo(email, 1))[0]!) } })
      }
      // What the dispatcher does with a committed event: one mail per verified subscriber, then send.
      const incidentCreated = {
        id: "evt_mail",
        event: "incident.created",
        occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
        componentIds: [],
        data: {
          id: "inc",
          title: "API <down>",
          status: "investigating",
          severity: "critical",
          componentIds: [],
          message: "We are on it & more"
        }
      } as const
      yield* storePublicSubjects([incidentCreated])
      const enqueued = yield* mail.enqueueMany([incidentCreated])
      expect(enqueued).toBeGreaterThanOrEqual(2)
      yield* Effect.forEach(yield* mail.claimDue(100), mail.attempt, { discard: true })

      const [, carolMail] = yield* mailsTo("carol@example.test", 2)
      const parsed = carolMail!.parsed
      expect(parsed.subject).toBe("[Status] New incident: API <down>")
      expect(parsed.text).toContain("We are on it & more")
      expect(parsed.html).toContain("API &lt;down&gt;")
      const link = /https:\/\/status\.example\.test\/unsubscribe\?email=([^&\s]+)&token=([A-Za-z0-9_-]+)/.exec(
        parsed.text ?? ""
      )
      expect(link).not.toBeNull()
      expect(decodeURIComponent(link![1]!)).toBe("carol@example.test")
      // mailparser folds List-* headers into one object: read the raw header lines instead.
      const header = (name: string) =>
        parsed.headerLines.find((line) => line.key === name)?.line.replace(/^[^:]+:\s*/, "").replace(/\r\n\s+/g, " ")
      expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click")
      const oneClick = header("list-unsubscribe")!.replace(/^\s*<|>$/g, "")
      expect(oneClick).toBe(`${publicUrl}/api/v1/unsubscribe/one-click?email=carol%40example.test&token=${link![2]}`)

      const wrong = yield* sendJson("POST", "/api/v1/unsubscribe", {
        email: "carol@example.test",
        token: "not-the-token"
      })
      expect(wrong.status).toBe(404)
      const otherAddress = yield* sendJson("POST", "/api/v1/unsubscribe", {
        email: "dave@example.test",
        token: link![2]
      })
      expect(otherAddress.status).toBe(404)

      // RFC 8058: the mail client POSTs a form body to the List-Unsubscribe URL.
      const http = yield* HttpClient.HttpClient
      const clicked = yield* http.execute(
        HttpClientRequest.post(oneClick.slice(publicUrl.length)).pipe(
          HttpClientRequest.bodyText("List-Unsubscribe=One-Click", "application/x-www-form-urlencoded")
        )
      ).pipe(
        Effect.flatMap((response) => Effect.map(response.json, (body) => ({ status: response.status, body }))),
        Effect.scoped
      )
      expect(clicked).toEqual({ status: 200, body: { unsubscribed: true } })
      expect((yield* client.subscribers.list({ query: {} })).map((s) => s.email)).not.toContain("carol@example.test")

      const [, daveMail] = yield* mailsTo("dave@example.test", 2)
      const daveToken = /unsubscribe\?email=[^&\s]+&token=([A-Za-z0-9_-]+)/.exec(daveMail!.parsed.text ?? "")![1]!
      expect(yield* client.subscriptions.unsubscribe({ payload: { email: "dave@example.test", token: daveToken } }))
        .toEqual({ unsubscribed: true })
      expect((yield* sendJson("POST", "/api/v1/unsubscribe", { email: "dave@example.test", token: daveToken })).status)
        .toBe(404)
    }))

  it.effect("a verified subscriber gets a mail for each incident and maintenance event, none for a component change", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const mail = yield* MailDeliveries
      const sql = yield* SqlClient.SqlClient
      yield* client.subscriptions.subscribe({ payload: { email: "frank@example.test" } })
      yield* client.subscriptions.verify({
        params: { token: verifyToken((yield* mailsTo("frank@example.test", 1))[0]!) }
      })
      // The eight kinds of event, about no particular component, handed over and sent as the dispatcher does.
      yield* storePublicSubjects(sampleEvents)
      yield* mail.enqueueMany(sampleEvents.map((event) => ({ ...event, id: `kinds_${event.id}`, componentIds: [] })))
      yield* Effect.flatMap(mail.claimDue(100), (due) => Effect.forEach(due, mail.attempt, { discard: true }))

      // Everything due is sent: what has arrived is all there is. The confirmation, then one mail per event.
      const [confirmation, ...notifications] = yield* mailsTo("frank@example.test", 1 + mailedEvents.length)
      expect(confirmation!.parsed.subject).toBe("Confirm your subscription to Status status updates")
      expect(notifications.map((m) => m.parsed.subject)).toEqual([
        "[Status] New incident: Elevated API error rates",
        "[Status] Incident updated: Elevated API error rates",
        "[Status] Incident resolved: Elevated API error rates",
        "[Status] Maintenance scheduled: Database upgrade",
        "[Status] Maintenance started: Database upgrade",
        "[Status] Maintenance completed: Database upgrade",
        "[Status] Reminder: scheduled maintenance Database upgrade starts 5 Mar 2026, 22:00 UTC"
      ])
      expect(notifications.every((m) => m.parsed.text?.includes("frank%40example.test"))).toBe(true)
      yield* sql`delete from subscribers where email = 'frank@example.test'`
    }))

  it.effect("admins delete subscribers; bad input is 400", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      yield* client.subscriptions.subscribe({ payload: { email: "erin@example.test" } })
      const erin = (yield* client.subscribers.list({ query: {} })).find((s) => s.email === "erin@example.test")!
      expect((yield* sendJson("DELETE", `/api/v1/admin/subscribers/${erin.id}`)).status).toBe(204)
      expect((yield* sendJson("DELETE", `/api/v1/admin/subscribers/${erin.id}`)).status).toBe(404)

      const cases: ReadonlyArray<readonly [string, "GET" | "POST" | "DELETE", string, unknown]> = [
        ["no email", "POST", "/api/v1/subscribe", {}],
        ["not an address", "POST", "/api/v1/subscribe", { email: "nobody" }],
        ["header injection", "POST", "/api/v1/subscribe", { email: "a@b.test\r\nBcc: x@y.test" }],
        ["too long", "POST", "/api/v1/subscribe", { email: `${"a".repeat(250)}@b.test` }],
        ["number", "POST", "/api/v1/subscribe", { email: 42 }],
        ["malformed JSON", "POST", "/api/v1/subscribe", "{"],
        ["unsubscribe without token", "POST", "/api/v1/unsubscribe", { email: "a@b.test" }],
        ["one-click without parameters", "POST", "/api/v1/unsubscribe/one-click", undefined],
        ["NUL in token", "POST", "/api/v1/unsubscribe", { email: "a@b.test", token: "\u0000" }],
        ["NUL in one-click token", "POST", "/api/v1/unsubscribe/one-click?email=a@b.test&token=%00", undefined],
        ["NUL in subscriber id", "DELETE", "/api/v1/admin/subscribers/%00", undefined]
      ]
      for (const [label, method, url, body] of cases) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
        expect(typeof response.body.message, label).toBe("string")
      }
      expect((yield* sendJson("GET", "/api/v1/subscribe/verify/unknown-token")).status).toBe(404)
    }))
})
