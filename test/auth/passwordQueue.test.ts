import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { PasswordHashing } from "../../src/services/auth/Passwords.js"
import { adminEmail, adminPassword, adminVariables, signIn } from "../support/Auth.js"
import { TestServer } from "../support/TestServer.js"

// One hash at a time and one check waiting: a burst overflows the queue at once.
const Stack = TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" }).pipe(
  Layer.provide(Layer.succeed(PasswordHashing, { concurrency: 1, maxWaiting: 1 }))
)

it.layer(Stack)("the queue in front of password hashing", (it) => {
  it.effect("a burst beyond the queue is refused at once with 429 and Retry-After", () =>
    Effect.gen(function*() {
      // Each from a client of its own, so no sign-in limit is reached.
      const responses = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => signIn(adminEmail, "wrong password", { "x-forwarded-for": `203.0.113.${i + 1}` }),
        { concurrency: "unbounded" }
      )
      const busy = responses.filter((r) => r.status === 429)
      const tried = responses.filter((r) => r.status === 401)
      expect(tried.length).toBeGreaterThanOrEqual(2) // the one hashing and the one waiting
      expect(busy.length).toBeGreaterThan(0)
      expect(tried.length + busy.length).toBe(16)
      for (const refused of busy) {
        expect(refused.body).toEqual({
          _tag: "TooManyRequests",
          message: "Too many sign-ins at once; try again in a second",
          retryAfterSeconds: 1
        })
        expect(refused.headers["retry-after"]).toBe("1")
      }

      // Once the queue has drained, the right password signs in.
      expect((yield* signIn(adminEmail, adminPassword, { "x-forwarded-for": "198.51.100.1" })).status).toBe(200)
    }))

  it.effect("an unknown e-mail runs the hash too (against a decoy): a burst of them fills the queue alike", () =>
    Effect.gen(function*() {
      // Were an unknown e-mail answered without a hash, none of these would wait, and none be refused.
      const responses = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => signIn(`nobody${i}@example.com`, "some password", { "x-forwarded-for": `203.0.113.${i + 101}` }),
        { concurrency: "unbounded" }
      )
      const busy = responses.filter((r) => r.status === 429)
      const tried = responses.filter((r) => r.status === 401)
      expect(tried.length).toBeGreaterThanOrEqual(2)
      expect(busy.length).toBeGreaterThan(0)
      expect(tried.length + busy.length).toBe(16)
      expect(tried[0]!.body).toEqual({ _tag: "Unauthorized", message: "Invalid email or password" })
      // Refused by the queue in front of the hash, not by a sign-in limit.
      for (const refused of busy) expect(refused.body.message).toBe("Too many sign-ins at once; try again in a second")
    }))
})
