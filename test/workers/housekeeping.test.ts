import { expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Housekeeping, housekeepingInterval } from "../../src/workers/Housekeeping.js"
import { adminVariables, signIn } from "../support/Auth.js"
import { eventually } from "../support/Eventually.js"
import { sendJson, TestServer } from "../support/TestServer.js"

/** The server plus the housekeeping fiber, on the suite's TestClock. */
const Stack = Housekeeping.pipe(Layer.provideMerge(TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" })))

const subscribe = (email: string, client: string) =>
  Effect.tap(
    sendJson("POST", "/api/v1/subscribe", { email }, { "x-forwarded-for": client }),
    (response) => Effect.sync(() => expect(response.status).toBe(202))
  )

const wrongSignIn = (email: string, client: string) =>
  Effect.tap(
    signIn(email, "not the password at all", { "x-forwarded-for": client }),
    (response) => Effect.sync(() => expect(response.status).toBe(401))
  )

const keys = (table: "rate_limits" | "signin_failures") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ key: string }>`select key from ${sql(table)} order by key`,
      (rows) => rows.map((row) => row.key)
    ))

const subscriberEmails = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.map(sql<{ email: string }>`select email from subscribers order by email`, (rows) => rows.map((r) => r.email))
)

/**
 * Moves the clock a pass at a time, waiting in real time for the pass it wakes, until `read`
 * satisfies `done` (at most five passes); the last reading.
 */
const afterPasses = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    let result = yield* read
    for (let pass = 0; pass < 5 && !done(result); pass++) {
      yield* TestClock.adjust(housekeepingInterval)
      result = yield* eventually(read, done, 1_000)
    }
    return result
  })

it.layer(Stack)("housekeeping", (it) => {
  it.effect("deletes expired rate-limit windows, sign-in counters and unconfirmed subscribers; keeps live ones", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Now: rows that will expire.
      yield* subscribe("old@example.test", "203.0.113.1")
      yield* subscribe("kept@example.test", "203.0.113.1")
      yield* sql`update subscribers set verified_at = now(), verify_token_hash = null, verify_expires_at = null
                 where email = 'kept@example.test'`
      yield* wrongSignIn("old-guess@example.test", "203.0.113.1")
      const oldSignIn = yield* keys("signin_failures")
      expect(oldSignIn).toHaveLength(3) // per client, per account and client, per account

      // Two hours on: the hour-long rate-limit windows of then are over, those of now are live.
      yield* TestClock.adjust("2 hours")
      yield* subscribe("live@example.test", "198.51.100.1")
      const rateLimits = yield* afterPasses(keys("rate_limits"), (k) => k.length === 2)
      expect(rateLimits).toEqual(["subscribe:address:live@example.test", "subscribe:client:198.51.100.1"])
      // Sign-in counters are kept a day after their window (the back-off remembers them).
      expect(yield* keys("signin_failures")).toEqual(oldSignIn)

      // A day on: the sign-in counters of then go, those of now stay.
      yield* TestClock.adjust("22 hours")
      yield* wrongSignIn("live-guess@example.test", "198.51.100.1")
      const signInKeys = yield* afterPasses(keys("signin_failures"), (k) => !k.some((key) => oldSignIn.includes(key)))
      expect(signInKeys).toEqual([
        "account-client:198.51.100.1 live-guess@example.test",
        "account:live-guess@example.test",
        "client:198.51.100.1"
      ])
      expect(yield* subscriberEmails).toEqual(["kept@example.test", "live@example.test", "old@example.test"])

      // Two days after it was sent, the first confirmation link expires; the later one has not.
      yield* TestClock.adjust(Duration.sum(Duration.hours(23), Duration.minutes(30)))
      const subscribers = yield* afterPasses(subscriberEmails, (emails) => !emails.includes("old@example.test"))
      expect(subscribers).toEqual(["kept@example.test", "live@example.test"])
    }))
})
