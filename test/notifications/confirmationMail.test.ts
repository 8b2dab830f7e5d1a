/**
 * The confirmation mail goes the durable way: queued with the subscription request, sent at once,
 * and retried by the dispatcher from the database when the SMTP server refuses it, for longer
 * than notification mail is, as long as its link works. A real SMTP server that refuses, then
 * accepts; the dispatcher role on the suite's TestClock.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../support/Eventually.js"
import { publicUrl, Smtp, withSmtp } from "../support/MailStack.js"
import { ApiClient, sendJson } from "../support/TestServer.js"

const WithDispatcher = withSmtp(Dispatcher)

const mailsTo = (email: string) =>
  Effect.map(Smtp, (smtp) => smtp.messages.filter((mail) => mail.envelopeTo.includes(email)))

const tokenOf = (text: string | undefined) => /\/subscribe\/verify\/([\w-]+)/.exec(text ?? "")?.[1]

/** The confirmation mails of `email` in the database. */
const confirmations = (email: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string; attempts: number; lastError: string | null; verifyToken: string | null }>`
      select m.status, m.attempts, m.last_error, to_jsonb(m) ->> 'verify_token' as verify_token
      from mail_deliveries m join subscribers s on s.id = m.subscriber_id
      where s.email = ${email} and m.event_id is null order by m.sequence`
  )

/**
 * Moves the TestClock by `seconds`, then a second at a time with real pauses for the
 * dispatcher's queries (it sleeps on the TestClock until a retry is due, 10 s at most), until
 * `done` holds.
 */
const advanceUntil = <A, E, R>(seconds: number, check: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(`${seconds} seconds`)
    for (let round = 0; round < 100; round++) {
      yield* realPause(30)
      const result = yield* check
      if (done(result)) return result
      yield* TestClock.adjust("1 second")
    }
    return yield* check
  })

/** Moves the clock by `seconds`, a second at a time, giving the dispatcher every chance to send. */
const tick = (seconds: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds; i++) {
      yield* TestClock.adjust("1 second")
      yield* realPause(30)
    }
  })

/** The confirmation of `email` once attempted `attempts` times, after `seconds`. */
const attemptedAfter = (seconds: number, email: string, attempts: number) =>
  Effect.map(
    advanceUntil(seconds, confirmations(email), (rows) => (rows[0]?.attempts ?? 0) >= attempts),
    (rows) => rows[0]
  )

it.layer(WithDispatcher)("confirmation mail", (it) => {
  it.effect("an SMTP outage delays the confirmation mail, which then arrives once, and its link works", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const email = "outage@example.test"
      // Refused five times: the process that took the request, then the dispatcher after 5, 10,
      // 20 and 40 s. Notification mail would have been given up after the fourth.
      smtp.refuse(email, 5)
      expect((yield* sendJson("POST", "/api/v1/subscribe", { email })).status).toBe(202)
      const attempts = [yield* attemptedAfter(0, email, 1)]
      for (const [wait, count] of [[5, 2], [10, 3], [20, 4], [40, 5]] as const) {
        attempts.push(yield* attemptedAfter(wait, email, count))
      }
      const before = yield* mailsTo(email)
      // The server is back: the next retry, 80 s later, is delivered (the row says so once the
      // SMTP server has accepted it, after the attempt is counted).
      attempts.push((yield* advanceUntil(80, confirmations(email), (rows) => rows[0]?.status === "sent"))[0])
      const [mail] = yield* eventually(mailsTo(email), (mails) => mails.length > 0)
      expect(mail, "the confirmation mail, after the outage").toBeDefined()
      expect(before).toHaveLength(0)
      expect(attempts).toMatchObject([
        { status: "pending", attempts: 1, lastError: expect.stringContaining("451") },
        ...[2, 3, 4, 5].map((count) => ({ status: "pending", attempts: count })),
        { status: "sent", attempts: 6 }
      ])
      expect(mail!.parsed.subject).toBe("Confirm your subscription to Status status updates")
      const token = tokenOf(mail!.parsed.text)!
      expect(mail!.parsed.text).toContain(`${publicUrl}/subscribe/verify/${token}`)
      // Sent: the token in clear is gone from the row.
      expect((yield* confirmations(email))[0]!.verifyToken).toBeNull()

      // Once: nothing more goes out while the dispatcher runs on.
      yield* tick(20)
      expect(yield* mailsTo(email)).toHaveLength(1)

      const client = yield* ApiClient
      expect(yield* client.subscriptions.verify({ params: { token } })).toEqual({ verified: true, email })
      // Confirmed: the mail's row goes with the used token.
      expect(yield* confirmations(email)).toEqual([])
    }))

  it.effect("a link replaced while its mail waited is not mailed; the newer one is", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const email = "twice@example.test"
      smtp.refuse(email, 1)
      yield* sendJson("POST", "/api/v1/subscribe", { email })
      yield* attemptedAfter(0, email, 1)
      // Asked again before the retry: a new link and its mail, sent at once.
      yield* sendJson("POST", "/api/v1/subscribe", { email })
      const [mail] = yield* eventually(mailsTo(email), (mails) => mails.length > 0)
      // The first mail's retry would have come 5 s later.
      yield* tick(20)
      expect(yield* mailsTo(email)).toHaveLength(1)
      expect(yield* eventually(confirmations(email), (rows) => rows[0]?.status === "sent")).toMatchObject([
        { status: "sent", attempts: 1, verifyToken: null }
      ])
      const token = tokenOf(mail!.parsed.text)!
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)
    }))

  it.effect("a confirmation still refused when its link expires is given up, unsent", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const email = "expired@example.test"
      smtp.refuse(email, 1000)
      yield* sendJson("POST", "/api/v1/subscribe", { email })
      yield* attemptedAfter(0, email, 1)
      // The link expires: moved into the past here, as 48 hours of TestClock would wake the
      // dispatcher's 10-second poll 17,280 times.
      const sql = yield* SqlClient.SqlClient
      yield* sql`update subscribers set verify_expires_at = verify_expires_at - interval '48 hours' where email = ${email}`
      const [row] = yield* advanceUntil(5, confirmations(email), (rows) => rows[0]?.status === "failed")
      expect(row).toMatchObject({
        status: "failed",
        verifyToken: null,
        lastError: expect.stringContaining("no longer works")
      })
      expect(yield* mailsTo(email)).toHaveLength(0)
      smtp.refuse(email, 0)
    }))
})
