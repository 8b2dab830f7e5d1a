/**
 * Without SMTP_URL every mail is kept in `mail_outbox_log`, and anyone can make the service write
 * one (a subscription request). Housekeeping deletes a kept confirmation once its link no longer
 * confirms (used, replaced, expired) and any kept mail after 48 hours; a pending link's mail
 * stays, so a developer can still confirm from the table. The real stack, the suite's TestClock.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Housekeeping, housekeepingInterval } from "../../src/workers/Housekeeping.js"
import { eventually } from "../support/Eventually.js"
import { sendJson, TestServer } from "../support/TestServer.js"

const Stack = Housekeeping.pipe(Layer.provideMerge(TestServer({ TRUST_PROXY: "127.0.0.1" })))

let client = 0
const subscribe = (email: string) =>
  Effect.tap(
    // A client of its own each time, clear of the per-client limit.
    sendJson("POST", "/api/v1/subscribe", { email }, { "x-forwarded-for": `203.0.113.${++client}` }),
    (response) => Effect.sync(() => expect(response.status).toBe(202))
  )

interface Kept {
  readonly id: string
  readonly toAddress: string
  readonly textBody: string
}

const kept = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<Kept>`select id, to_address, text_body from mail_outbox_log order by created_at, id`
)

/** The kept mails once `count` of them are there (the confirmation is kept just after the answer). */
const keptCount = (count: number) => eventually(kept, (rows) => rows.length === count)

const tokenOf = (mail: Kept) => /\/subscribe\/verify\/([\w-]+)/.exec(mail.textBody)![1]!

/** Runs housekeeping passes until `done` holds of the kept mails (at most five); the last reading. */
const afterPasses = (done: (rows: ReadonlyArray<Kept>) => boolean) =>
  Effect.gen(function*() {
    let rows = yield* kept
    for (let pass = 0; pass < 5 && !done(rows); pass++) {
      yield* TestClock.adjust(housekeepingInterval)
      rows = yield* eventually(kept, done, 1_000)
    }
    return rows
  })

it.layer(Stack)("housekeeping of mail kept without SMTP", (it) => {
  it.effect(
    "a kept confirmation goes once its link is used, replaced or expired; any kept mail after 48 hours",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* subscribe("pending@example.test")
        yield* subscribe("confirmed@example.test")
        yield* subscribe("twice@example.test")
        yield* subscribe("expired@example.test")
        yield* keptCount(4)
        yield* subscribe("twice@example.test")
        const before = yield* keptCount(5)
        const [pending, confirmed, replaced, expired, newer] = before
        // A notification mail as the Mailer keeps it: its unsubscribe token already REDACTED.
        yield* sql`
        insert into mail_outbox_log (to_address, subject, text_body, html_body)
        values ('reader@example.test', '[Status] Incident: API errors', 'token=REDACTED', '<p>token=REDACTED</p>')`

        // Used: confirmed through the link the kept mail holds.
        expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${tokenOf(confirmed!)}`)).status).toBe(200)
        // Expired: its link's time moved into the past.
        yield* sql`update subscribers set verify_expires_at = now() - interval '1 minute'
                 where email = 'expired@example.test'`

        const left = yield* afterPasses((rows) => rows.length === 3)
        expect(left.map((row) => row.id)).toEqual([pending!.id, newer!.id, expect.any(String)])
        expect(left.map((row) => row.toAddress)).toEqual([
          "pending@example.test",
          "twice@example.test",
          "reader@example.test"
        ])
        expect([confirmed, replaced, expired].map((row) => row!.toAddress)).toEqual([
          "confirmed@example.test",
          "twice@example.test",
          "expired@example.test"
        ])
        // The pending link's mail still confirms, from the table.
        expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${tokenOf(newer!)}`)).status).toBe(200)

        // 48 hours on, nothing is kept, whatever it was.
        yield* TestClock.adjust("48 hours")
        expect(yield* afterPasses((rows) => rows.length === 0)).toEqual([])
      }),
    60_000
  )
})
