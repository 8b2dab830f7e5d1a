/**
 * A mail the SMTP server refuses for good (a 5xx reply: no such mailbox) is not sent again: the
 * confirmation mail is no longer retried until its link expires, nor a notification on the
 * webhook schedule. The row says why (its error and the reply code) and the attempt is counted
 * as `refused`. A real SMTP server that answers 550; the dispatcher on the suite's TestClock.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { mailAttempts } from "../../src/observability/Metrics.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../support/Eventually.js"
import { Smtp, withSmtp } from "../support/MailStack.js"
import { sendJson } from "../support/TestServer.js"

interface MailRow {
  readonly kind: string
  readonly status: string
  readonly attempts: number
  readonly lastError: string | null
  readonly lastReplyCode: number | null
}

/** The mail rows of `email`, oldest first. */
const mailRows = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MailRow>`
      select m.kind, m.status, m.attempts, m.last_error, to_jsonb(m) -> 'last_reply_code' as last_reply_code
      from mail_deliveries m join subscribers s on s.id = m.subscriber_id
      where s.email = ${email} order by m.sequence`)

/** Moves the clock by `seconds`, a second at a time, giving the dispatcher every chance to retry. */
const tick = (seconds: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds; i++) {
      yield* TestClock.adjust("1 second")
      yield* realPause(20)
    }
  })

/** Mail attempts counted with `outcome` as the first attempt. */
const firstAttempts = (outcome: string) =>
  Metric.value(Metric.withAttributes(mailAttempts, { outcome, attempt: "1" })).pipe(
    Effect.map((state) => state.count)
  )

const refusedForGood = (kind: string) => ({
  kind,
  status: "failed",
  attempts: 1,
  lastError: expect.stringMatching(/^Refused for good by the mail server \(550\); not retried\. .*550/),
  lastReplyCode: 550
})

it.layer(withSmtp(Dispatcher))("mail refused for good", (it) => {
  it.effect(
    "a confirmation mail refused with 550 is not retried; the row says why and it is counted",
    () =>
      Effect.gen(function*() {
        const smtp = yield* Smtp
        const email = "no-such-user@example.test"
        smtp.refuse(email, 1000, 550)
        const refusedBefore = yield* firstAttempts("refused")
        expect((yield* sendJson("POST", "/api/v1/subscribe", { email })).status).toBe(202)
        const [row] = yield* eventually(mailRows(email), (rows) => (rows[0]?.attempts ?? 0) >= 1)
        expect(row).toEqual(refusedForGood("confirmation"))
        // The retries of a refused confirmation would have come after 5, 10, 20 and 40 s.
        yield* tick(90)
        expect(yield* mailRows(email)).toEqual([refusedForGood("confirmation")])
        expect((yield* firstAttempts("refused")) - refusedBefore).toBe(1)
        // The address is kept out of the row, as out of the log.
        expect(row!.lastError).not.toContain(email)
      }),
    60_000
  )

  it.effect(
    "a notification mail refused with 550 is failed at once; one refused with 451 is retried",
    () =>
      Effect.gen(function*() {
        const smtp = yield* Smtp
        const sql = yield* SqlClient.SqlClient
        const gone = "left-the-company@example.test"
        const busy = "full-mailbox@example.test"
        // Two verified subscribers, as confirming their links would leave them.
        for (const email of [gone, busy]) {
          yield* sql`insert into subscribers (email, unsubscribe_token, verified_at, page_id)
                   values (${email}, ${`token-of-${email}`}, now(), (select id from status_pages where is_default))`
        }
        smtp.refuse(gone, 1000, 550)
        smtp.refuse(busy, 1, 451)
        expect(
          (yield* sendJson("POST", "/api/v1/admin/incidents", { title: "API errors", message: "Looking" })).status
        ).toBe(201)
        yield* eventually(mailRows(gone), (rows) => (rows[0]?.attempts ?? 0) >= 1, 10_000)
        yield* tick(40)
        expect(yield* mailRows(gone)).toEqual([refusedForGood("notification")])
        // A temporary refusal is still retried, and the mail goes out.
        expect(yield* eventually(mailRows(busy), (rows) => rows[0]?.status === "sent")).toEqual([
          { kind: "notification", status: "sent", attempts: 2, lastError: null, lastReplyCode: null }
        ])
        expect(smtp.messages.filter((mail) => mail.envelopeTo.includes(busy))).toHaveLength(1)
        expect(smtp.messages.filter((mail) => mail.envelopeTo.includes(gone))).toHaveLength(0)
      }),
    60_000
  )
})
