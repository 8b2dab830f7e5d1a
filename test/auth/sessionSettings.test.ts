/**
 * SESSION_IDLE_TIMEOUT and SESSION_MAX_AGE set to other values than their defaults (12 hours,
 * 7 days): a session ends after the configured idle time and at the configured age, on the
 * suite's TestClock. Under the defaults each of these sessions would still be alive
 * (auth.test.ts tests the defaults).
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

import { adminVariables, sessionCookieHeader, signIn } from "../support/Auth.js"
import { sendAnonymous, TestServer } from "../support/TestServer.js"

const settings = { SESSION_IDLE_TIMEOUT: "30 minutes", SESSION_MAX_AGE: "2 hours" }

const me = (cookie: string) =>
  Effect.map(sendAnonymous("GET", "/api/v1/auth/me", undefined, { cookie }), (r) => r.status)

it.layer(TestServer({ ...adminVariables, ...settings }))("session settings", (it) => {
  it.effect("SESSION_IDLE_TIMEOUT: a session ends after 30 idle minutes; each use restarts the timer", () =>
    Effect.gen(function*() {
      const idle = yield* sessionCookieHeader
      const used = yield* sessionCookieHeader

      // 29 minutes without a request: alive.
      yield* TestClock.adjust("29 minutes")
      expect(yield* me(idle)).toBe(200)
      expect(yield* me(used)).toBe(200)
      yield* TestClock.adjust("29 minutes")
      expect(yield* me(used)).toBe(200)
      // 30 minutes after its last use (at 29) the idle one has ended; the one used at 58 has not.
      yield* TestClock.adjust("1 minute")
      expect(yield* me(idle), "30 minutes after its last use").toBe(401)
      expect(yield* me(used)).toBe(200)
      // Left alone for 30 minutes, the other one ends too, and stays ended.
      yield* TestClock.adjust("30 minutes")
      expect(yield* me(used), "30 minutes after its last use").toBe(401)
      yield* TestClock.adjust("1 minute")
      expect(yield* me(idle)).toBe(401)
    }))

  it.effect("SESSION_MAX_AGE: a session used every 20 minutes ends 2 hours after sign-in; the cookie says so", () =>
    Effect.gen(function*() {
      const signedIn = yield* signIn()
      expect(signedIn.status).toBe(200)
      expect(signedIn.cookie?.attributes).toContain("max-age=7200")
      const busy = `${signedIn.cookie!.name}=${signedIn.cookie!.value}`

      for (let minutes = 20; minutes < 120; minutes += 20) {
        yield* TestClock.adjust("20 minutes")
        expect(yield* me(busy), `${minutes} minutes after sign-in`).toBe(200)
      }
      yield* TestClock.adjust("19 minutes")
      expect(yield* me(busy), "119 minutes after sign-in").toBe(200)
      yield* TestClock.adjust("1 minute")
      expect(yield* me(busy), "120 minutes after sign-in").toBe(401)
      // A new sign-in is not affected.
      expect(yield* me(yield* sessionCookieHeader)).toBe(200)
    }))
})
