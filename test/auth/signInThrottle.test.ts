import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import { SignInLimits, signInLimits } from "../../src/services/auth/SignInThrottle.js"
import { adminEmail, adminPassword, adminVariables, signIn } from "../support/Auth.js"
import { TestServer } from "../support/TestServer.js"

/** Signs in as the administrator from the client the trusted proxy names. */
const signInFrom = (client: string, password: string) => signIn(adminEmail, password, { "x-forwarded-for": client })

const statusCounts = (statuses: ReadonlyArray<number>) => ({
  unauthorized: statuses.filter((status) => status === 401).length,
  tooMany: statuses.filter((status) => status === 429).length
})

/** `perClient` wrong passwords from each of `clients`, one after another; the statuses. */
const guessFrom = (clients: ReadonlyArray<string>, perClient: number) =>
  Effect.forEach(
    clients.flatMap((client) => Array.from({ length: perClient }, (_, i) => ({ client, i }))),
    ({ client, i }) => Effect.map(signInFrom(client, `wrong password ${i}`), (response) => response.status)
  )

const clientsNamed = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}.${i + 1}`)

it.layer(TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" }))("sign-in throttling", (it) => {
  it.effect("of 40 concurrent wrong passwords from one client, only the limit is tried; the rest are 429", () =>
    Effect.gen(function*() {
      const responses = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => signInFrom("203.0.113.10", `wrong password ${i}`),
        { concurrency: "unbounded" }
      )
      expect(statusCounts(responses.map((r) => r.status))).toEqual({
        unauthorized: signInLimits.perAccountAndClient.limit,
        tooMany: 40 - signInLimits.perAccountAndClient.limit
      })
      for (const refused of responses.filter((r) => r.status === 429)) {
        expect(refused.body).toEqual({
          _tag: "TooManyRequests",
          message: "Too many failed sign-ins; try again later",
          retryAfterSeconds: expect.any(Number)
        })
        const retryAfter = Number(refused.headers["retry-after"])
        expect(retryAfter).toBeGreaterThan(0)
        expect(retryAfter).toBeLessThanOrEqual(15 * 60)
      }
    }))

  it.effect("a client locked out of an account does not lock out the right password from another client", () =>
    Effect.gen(function*() {
      const guesses = yield* guessFrom(["203.0.113.20"], signInLimits.perAccountAndClient.limit)
      expect(guesses.every((status) => status === 401)).toBe(true)
      expect((yield* signInFrom("203.0.113.20", adminPassword)).status).toBe(429)

      const elsewhere = yield* signInFrom("198.51.100.20", adminPassword)
      expect(elsewhere.status).toBe(200)
      expect(elsewhere.cookie?.name).toBe("__Host-session")
      // The locked-out client stays locked out.
      expect((yield* signInFrom("203.0.113.20", adminPassword)).status).toBe(429)
    }))
})

// The same rules with a lower ceiling, so reaching it takes a few password hashes, not a hundred.
const smallLimits = {
  ...signInLimits,
  perAccountAndClient: { ...signInLimits.perAccountAndClient, limit: 2 },
  perAccount: { ...signInLimits.perAccount, limit: 8 }
}

const WithSmallLimits = TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" }).pipe(
  Layer.provide(Layer.succeed(SignInLimits, smallLimits))
)

it.layer(WithSmallLimits)("the account-wide ceiling", (it) => {
  it.effect("distributed guessing meets the account-wide ceiling, which then holds the right password too", () =>
    Effect.gen(function*() {
      // In production the ceiling is ten clients' worth of guesses; here four.
      expect(signInLimits.perAccount.limit).toBe(10 * signInLimits.perAccountAndClient.limit)
      const { limit } = smallLimits.perAccount
      const perClient = smallLimits.perAccountAndClient.limit
      // Each client stays within its own limit; together they reach the account's.
      const guesses = yield* guessFrom(clientsNamed("192.0.2", limit / perClient), perClient)
      expect(statusCounts(guesses)).toEqual({ unauthorized: limit, tooMany: 0 })

      const refused = yield* signInFrom("198.51.100.30", adminPassword)
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ _tag: "TooManyRequests", message: expect.any(String) })
      const retryAfter = Number(refused.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)

      yield* TestClock.adjust(`${retryAfter} seconds`)
      expect((yield* signInFrom("198.51.100.30", adminPassword)).status).toBe(200)
    }))

  it.effect("after a full window, the account's next one lasts twice as long", () =>
    Effect.gen(function*() {
      const { limit } = smallLimits.perAccount
      const perClient = smallLimits.perAccountAndClient.limit
      const guesses = yield* guessFrom(clientsNamed("192.0.3", limit / perClient), perClient)
      expect(statusCounts(guesses)).toEqual({ unauthorized: limit, tooMany: 0 })

      const refused = yield* signInFrom("198.51.100.40", adminPassword)
      expect(refused.status).toBe(429)
      const retryAfter = Number(refused.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(15 * 60)
      expect(retryAfter).toBeLessThanOrEqual(30 * 60)
      yield* TestClock.adjust(`${retryAfter} seconds`)
      expect((yield* signInFrom("198.51.100.40", adminPassword)).status).toBe(200)
    }))
})
