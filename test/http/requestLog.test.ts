/**
 * What the service writes to its log and keeps of its mail while the links in that mail do their
 * work: the full stack without SMTP_URL (mail kept in mail_outbox_log), every log line captured.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { Mailer } from "../../src/services/notifications/mail/Mailer.js"
import type { MailedEvent } from "../../src/services/notifications/mail/SubscriberMail.js"
import { notificationMail } from "../../src/services/notifications/mail/SubscriberMail.js"
import { sampleEvents, sender } from "../notifications/SampleEvents.js"
import { eventually } from "../support/Eventually.js"
import { logAnnotations, minimumLogLevel, replaceDefaultLogger } from "../support/Logs.js"
import { testConfig } from "../support/TestDatabase.js"
import { sendJson, TestHttpServer } from "../support/TestServer.js"

const incidentCreated = sampleEvents.find((event) => event.event === "incident.created") as MailedEvent

interface LogLine {
  readonly message: string
  readonly annotations: Record<string, unknown>
}

const lines: Array<LogLine> = []
const capture = Logger.make<unknown, void>((options) => {
  lines.push({
    message: JSON.stringify(options.message),
    annotations: { ...logAnnotations(options) }
  })
})

/** The production HTTP stack with every log line, request lines included, kept in `lines`. */
const Stack = HttpLive.pipe(
  Layer.provideMerge(TestHttpServer),
  Layer.provideMerge(Mailer.layer),
  Layer.provideMerge(Database),
  Layer.provideMerge(testConfig({ PUBLIC_URL: "https://status.example.test" })),
  // Merged, not only provided: the suite's tests log through `capture` too, as they did in v3.
  Layer.provideMerge(replaceDefaultLogger(capture)),
  Layer.provideMerge(minimumLogLevel("Debug")),
  Layer.provide(Layer.effectDiscard(TestClock.setTime(Date.now())))
)

const form = (path: string, fields: Record<string, string>) =>
  sendJson("POST", path, new URLSearchParams(fields).toString(), {
    "content-type": "application/x-www-form-urlencoded"
  })

/** The latest mail kept for `email`. */
const keptMail = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ textBody: string; htmlBody: string; headers: Record<string, string> }>`
        select text_body, html_body, headers from mail_outbox_log where to_address = ${email}
        order by created_at desc limit 1`,
      (rows) => rows.at(0)
    ))

/** Subscribes `email` and returns the confirmation token from the kept mail, and the unsubscribe token. */
const subscribe = (email: string) =>
  Effect.gen(function*() {
    expect((yield* sendJson("POST", "/api/v1/subscribe", { email })).status).toBe(202)
    // Kept by the request's background fiber, just after the answer.
    const mail = yield* eventually(keptMail(email), (found) => found !== undefined)
    const token = /\/subscribe\/verify\/([\w-]+)/.exec(mail?.textBody ?? "")![1]!
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ unsubscribeToken: string }>`
      select unsubscribe_token from subscribers where email = ${email}`
    return { token, unsubscribeToken: row!.unsubscribeToken }
  })

it.layer(Stack)("secrets in logs and kept mail", (it) => {
  it.effect("request lines name the route of e-mail links, never their token or address", () =>
    Effect.gen(function*() {
      const email = "reader@example.test"
      const { token, unsubscribeToken } = yield* subscribe(email)
      const query = new URLSearchParams({ email, token: unsubscribeToken }).toString()
      lines.length = 0

      yield* sendJson("GET", `/subscribe/verify/${token}`)
      yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)
      // Used by now: a 404, logged on the failure path.
      yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)
      yield* sendJson("GET", `/unsubscribe?${query}`)
      expect((yield* sendJson("GET", `/nowhere/${email}?${query}`)).status).toBe(404)
      expect((yield* sendJson("POST", `/api/v1/unsubscribe/one-click?${query}`)).status).toBe(200)

      const requests = lines.filter((line) => "http.url" in line.annotations)
      expect(requests.map((line) => [line.annotations["http.method"], line.annotations["http.url"]])).toEqual([
        ["GET", "/subscribe/verify/REDACTED"],
        ["GET", "/api/v1/subscribe/verify/REDACTED"],
        ["GET", "/api/v1/subscribe/verify/REDACTED"],
        ["GET", "/unsubscribe?email=REDACTED&token=REDACTED"],
        ["GET", "/nowhere/REDACTED?email=REDACTED&token=REDACTED"],
        ["POST", "/api/v1/unsubscribe/one-click?email=REDACTED&token=REDACTED"]
      ])
      expect(requests.map((line) => line.annotations["http.status"])).toEqual([200, 200, 404, 200, 404, 200])
      const logged = JSON.stringify(lines)
      for (const secret of [token, unsubscribeToken, email, encodeURIComponent(email)]) {
        expect(logged).not.toContain(secret)
      }
    }))

  it.effect("kept notifications hold no unsubscribe token; the kept confirmation link confirms once, then grants nothing", () =>
    Effect.gen(function*() {
      const email = "developer@example.test"
      const { token, unsubscribeToken } = yield* subscribe(email)

      // A notification: its unsubscribe link would work as long as the subscription lasts, so
      // the kept copy leaves the token out.
      const mailer = yield* Mailer
      yield* mailer.send(notificationMail({ event: incidentCreated, sender, email, unsubscribeToken }))
      const kept = (yield* keptMail(email))!
      expect(JSON.stringify(kept)).not.toContain(unsubscribeToken)
      expect(kept.textBody).toContain(`${sender.url}/unsubscribe?email=developer%40example.test&token=REDACTED`)
      expect(kept.headers["List-Unsubscribe"]).toContain("token=REDACTED")
      expect(kept.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")

      // Development without SMTP: the confirmation link read from mail_outbox_log works.
      const confirmed = yield* form("/subscribe/verify", { token })
      expect(confirmed.status).toBe(200)
      expect(confirmed.body).toContain(`${email} will now receive`)
      // Once confirmed, the same kept link confirms nothing and its page offers nothing.
      expect((yield* form("/subscribe/verify", { token })).status).toBe(404)
      expect((yield* sendJson("GET", `/subscribe/verify/${token}`)).status).toBe(404)
      expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(404)
      // Nor does the database hold the token anywhere any more.
      const sql = yield* SqlClient.SqlClient
      const [left] = yield* sql<{ rows: number }>`
        select count(*)::int as rows from mail_deliveries m join subscribers s on s.id = m.subscriber_id
        where s.email = ${email}`
      expect(left!.rows).toBe(0)
    }))
})
