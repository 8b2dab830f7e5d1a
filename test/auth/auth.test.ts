import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

import { signInLimits } from "../../src/services/auth/SignInThrottle.js"
import { adminEmail, adminPassword, adminVariables, sessionCookieHeader, signIn } from "../support/Auth.js"
import { sendAnonymous, TestServer } from "../support/TestServer.js"

const createComponent = (cookie: string, headers: Record<string, string> = {}) =>
  sendAnonymous("POST", "/api/v1/admin/components", { name: "From a session" }, { cookie, ...headers })

it.layer(TestServer(adminVariables))("sessions", (it) => {
  it.effect("sign-in sets a __Host- cookie with the contract's flags and a fresh token each time", () =>
    Effect.gen(function*() {
      const first = yield* signIn()
      expect(first.status).toBe(200)
      expect(first.body).toEqual({
        user: { id: expect.any(String), email: adminEmail, name: "Administrator", role: "owner" }
      })
      expect(first.cookie?.name).toBe("__Host-session")
      expect(first.cookie?.value.length).toBeGreaterThanOrEqual(43) // 256 random bits, base64url
      expect(first.cookie?.attributes).toEqual(expect.arrayContaining(["httponly", "secure", "samesite=lax", "path=/"]))
      expect(first.cookie?.attributes.some((a) => a.startsWith("domain"))).toBe(false)

      const second = yield* signIn()
      expect(second.cookie?.value).not.toBe(first.cookie?.value)
      for (const session of [first, second]) {
        const me = yield* sendAnonymous("GET", "/api/v1/auth/me", undefined, {
          cookie: `__Host-session=${session.cookie?.value}`
        })
        expect(me.status).toBe(200)
        expect(me.body).toMatchObject({ user: { email: adminEmail }, authenticatedBy: "session" })
      }
    }))

  it.effect("e-mail is case-insensitive; wrong e-mail and wrong password look alike", () =>
    Effect.gen(function*() {
      expect((yield* signIn(adminEmail.toUpperCase())).status).toBe(200)
      const unknown = yield* signIn("nobody@example.com", adminPassword)
      const wrong = yield* signIn(adminEmail, "not the password at all")
      expect(unknown.status).toBe(401)
      expect(wrong.status).toBe(401)
      expect(unknown.body).toEqual(wrong.body)
      expect(unknown.body).toEqual({ _tag: "Unauthorized", message: "Invalid email or password" })
      expect(unknown.cookie).toBeUndefined()
      expect(wrong.cookie).toBeUndefined()
      // That both run the hash (the unknown e-mail against a decoy): passwordQueue.test.ts.
    }))

  it.effect("sign-out ends the session server-side and clears the cookie", () =>
    Effect.gen(function*() {
      const cookie = yield* sessionCookieHeader
      expect((yield* createComponent(cookie)).status).toBe(201)
      const out = yield* sendAnonymous("POST", "/api/v1/auth/signout", undefined, { cookie })
      expect(out.status).toBe(204)
      expect(out.headers["set-cookie"]).toMatch(/^__Host-session=;.*Max-Age=0/i)
      const after = yield* createComponent(cookie)
      expect(after.status).toBe(401)
      expect(after.body._tag).toBe("Unauthorized")
      // Signing out without a session is harmless.
      expect((yield* sendAnonymous("POST", "/api/v1/auth/signout")).status).toBe(204)
    }))

  it.effect("refuses cookie-authenticated changes from another site, but not reads or bearer requests", () =>
    Effect.gen(function*() {
      const cookie = yield* sessionCookieHeader
      const crossSite = yield* createComponent(cookie, { "sec-fetch-site": "cross-site" })
      expect(crossSite.status).toBe(403)
      expect(crossSite.body._tag).toBe("Forbidden")
      const foreignOrigin = yield* createComponent(cookie, { origin: "https://evil.example" })
      expect(foreignOrigin.status).toBe(403)
      const opaqueOrigin = yield* createComponent(cookie, { origin: "null" })
      expect(opaqueOrigin.status).toBe(403)

      expect(
        (yield* createComponent(cookie, { "sec-fetch-site": "same-origin", origin: "http://localhost:3000" })).status
      )
        .toBe(201)
      const read = yield* sendAnonymous("GET", "/api/v1/admin/components", undefined, {
        cookie,
        "sec-fetch-site": "cross-site"
      })
      expect(read.status).toBe(200)
      const signOut = yield* sendAnonymous("POST", "/api/v1/auth/signout", undefined, {
        cookie,
        origin: "https://evil.example"
      })
      expect(signOut.status).toBe(403)
    }))

  it.effect("a session ends after 12 idle hours and 7 days after sign-in however busy", () =>
    Effect.gen(function*() {
      const idle = yield* sessionCookieHeader
      const busy = yield* sessionCookieHeader
      const me = (cookie: string) =>
        Effect.map(sendAnonymous("GET", "/api/v1/auth/me", undefined, { cookie }), (r) => r.status)

      // Each use restarts the idle timer; 12 hours without one end the session.
      yield* TestClock.adjust("11 hours")
      expect(yield* me(idle)).toBe(200)
      expect(yield* me(busy)).toBe(200)
      yield* TestClock.adjust("11 hours")
      expect(yield* me(idle)).toBe(200)
      expect(yield* me(busy)).toBe(200)
      yield* TestClock.adjust("6 hours")
      expect(yield* me(busy)).toBe(200)
      yield* TestClock.adjust("6 hours")
      expect(yield* me(idle)).toBe(401) // 12 hours after its last use

      // Used every 10 hours: never idle, but the absolute lifetime (7 days = 168 h) still ends it.
      yield* TestClock.adjust("4 hours")
      expect(yield* me(busy)).toBe(200)
      let elapsed = 38
      while (elapsed + 10 < 168) {
        yield* TestClock.adjust("10 hours")
        elapsed += 10
        expect(yield* me(busy), `busy after ${elapsed} hours`).toBe(200)
      }
      yield* TestClock.adjust("10 hours")
      expect(yield* me(busy)).toBe(401)
    }))

  it.effect("rate-limits failed sign-ins per account and client with 429 and Retry-After, even for the right password", () =>
    Effect.gen(function*() {
      for (let attempt = 0; attempt < signInLimits.perAccountAndClient.limit; attempt++) {
        expect((yield* signIn(adminEmail, `wrong password ${attempt}`)).status).toBe(401)
      }
      const limited = yield* signIn()
      expect(limited.status).toBe(429)
      expect(limited.body).toMatchObject({ _tag: "TooManyRequests", retryAfterSeconds: expect.any(Number) })
      const retryAfter = Number(limited.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)

      yield* TestClock.adjust(`${retryAfter} seconds`)
      expect((yield* signIn()).status).toBe(200)
    }))

  it.effect("rate-limits failed sign-ins per client address across accounts", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour") // a fresh window
      for (let attempt = 0; attempt < signInLimits.perClient.limit; attempt++) {
        expect((yield* signIn(`guess${attempt}@example.com`, "password123456")).status).toBe(401)
      }
      const limited = yield* signIn()
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toMatch(/^\d+$/)
      yield* TestClock.adjust("16 minutes")
    }))

  it.effect("validates the sign-in body", () =>
    Effect.gen(function*() {
      for (const body of [{}, { email: adminEmail }, { email: 1, password: "x" }, "not json {"]) {
        const response = yield* sendAnonymous("POST", "/api/v1/auth/signin", body)
        expect(response.status).toBe(400)
        expect(typeof response.body.message).toBe("string")
      }
    }))
})
