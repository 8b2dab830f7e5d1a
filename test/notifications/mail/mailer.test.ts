import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { Database } from "../../../src/persistence/Database.js"
import { Mailer } from "../../../src/services/notifications/mail/Mailer.js"
import { minimumLogLevel } from "../../support/Logs.js"
import { smtpCapture } from "../../support/SmtpCapture.js"
import { testConfig } from "../../support/TestDatabase.js"

const message = {
  to: "reader@example.test",
  subject: "Hello",
  text: "Plain part",
  html: "<p>HTML part</p>",
  headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
}

const quiet = Layer.provideMerge(minimumLogLevel("Warn"))

it.layer(Mailer.layer.pipe(Layer.provideMerge(Database), Layer.provide(testConfig()), quiet))(
  "mailer without SMTP_URL",
  (it) => {
    it.effect("keeps the mail in the database", () =>
      Effect.gen(function*() {
        yield* (yield* Mailer).send(message)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`select to_address, subject, text_body, html_body, headers from mail_outbox_log`
        expect(rows).toEqual([{
          toAddress: "reader@example.test",
          subject: "Hello",
          textBody: "Plain part",
          htmlBody: "<p>HTML part</p>",
          headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
        }])
      }))
  }
)

it.effect("mailer with SMTP_URL sends both parts over SMTP from MAIL_FROM", () =>
  Effect.gen(function*() {
    const smtp = yield* smtpCapture
    const layer = Mailer.layer.pipe(
      Layer.provide(Database),
      Layer.provide(testConfig({ SMTP_URL: smtp.url, MAIL_FROM: "Status <status@example.test>" })),
      quiet
    )
    yield* Effect.flatMap(Mailer, (mailer) => mailer.send(message)).pipe(Effect.provide(layer))
    const [mail] = yield* smtp.waitFor(1)
    expect(mail!.envelopeTo).toEqual(["reader@example.test"])
    expect(mail!.parsed.from?.value[0]).toMatchObject({ address: "status@example.test", name: "Status" })
    expect(mail!.parsed.text?.trim()).toBe("Plain part")
    expect(mail!.parsed.html).toBe("<p>HTML part</p>")
    expect(mail!.parsed.headerLines.map((line) => line.line)).toContain(
      "List-Unsubscribe-Post: List-Unsubscribe=One-Click"
    )
  }).pipe(Effect.scoped), 30_000)
