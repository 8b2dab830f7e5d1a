import { createHmac, randomBytes } from "node:crypto"

import { expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Administrators } from "../../src/services/auth/Administrators.js"
import { deviceCookieMaxAge } from "../../src/services/auth/DeviceCookies.js"
import { backOffMemory, SignInLimits, signInLimits } from "../../src/services/auth/SignInThrottle.js"
import { adminEmail, adminPassword, adminVariables, signIn } from "../support/Auth.js"
import { sendAnonymous, TestServer } from "../support/TestServer.js"

// Ten addresses with one wrong password each fill the account's ceiling, so locking it takes ten
// password hashes, not fifty; a device is locked after three failures of its own.
const limits = {
  ...signInLimits,
  perAccountAndClient: { ...signInLimits.perAccountAndClient, limit: 2 },
  perAccount: { ...signInLimits.perAccount, limit: 10 },
  perDevice: { ...signInLimits.perDevice, limit: 3 }
}

const WithSmallLimits = TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" }).pipe(
  Layer.provide(Layer.succeed(SignInLimits, limits))
)

/** Signs in from the client the trusted proxy names, with the device cookie `device` if given. */
const signInFrom = (client: string, password: string, device?: string, email = adminEmail) =>
  signIn(email, password, {
    "x-forwarded-for": client,
    ...(device === undefined ? {} : { cookie: `__Host-device=${device}` })
  })

/** A browser that has signed in at `client`: the device cookie it was given. */
const knownDevice = (client: string, email = adminEmail) =>
  Effect.map(signInFrom(client, adminPassword, undefined, email), (signedIn) => {
    expect(signedIn.status).toBe(200)
    return signedIn.deviceCookie?.value
  })

/** Ten addresses each send a wrong password; then the right one from a new device is refused. */
const lockAccountFrom = (prefix: string) =>
  Effect.gen(function*() {
    for (let i = 1; i <= 10; i++) {
      expect((yield* signInFrom(`${prefix}.${i}`, "a wrong guess")).status).toBe(401)
    }
    expect((yield* signInFrom(`${prefix}.200`, adminPassword)).status).toBe(429)
  })

/** Every test starts on an account whose windows, and their back-off, are long forgotten. */
const afterEarlierTests = TestClock.adjust(Duration.sum(Duration.days(1), Duration.times(backOffMemory, 2)))

/** A response's headers without `date`, which follows the real clock. */
const headersOf = ({ headers }: { readonly headers: Readonly<Record<string, string>> }) => {
  const { date: _date, ...rest } = headers
  return rest
}

it.layer(WithSmallLimits)("device cookies", (it) => {
  it.effect("after ten addresses' wrong passwords, a new device is refused alike for any password, and a browser known from before signs in", () =>
    Effect.gen(function*() {
      yield* afterEarlierTests
      const device = yield* knownDevice("198.51.100.1")
      yield* lockAccountFrom("192.0.2")
      // Refused without the cookie, also at the address the device signed in from, and the
      // refusal tells nothing about the password.
      const right = yield* signInFrom("198.51.100.1", adminPassword)
      const wrong = yield* signInFrom("198.51.100.1", "surely not this")
      expect(right.status).toBe(429)
      expect(wrong.status).toBe(429)
      expect(wrong.body).toEqual(right.body)
      expect(headersOf(wrong)).toEqual(headersOf(right))
      expect(right.cookie).toBeUndefined()
      expect(right.deviceCookie).toBeUndefined()

      const known = yield* signInFrom("198.51.100.1", adminPassword, device)
      expect(known.status).toBe(200)
      expect(known.body).toMatchObject({ user: { email: adminEmail } })
      const me = yield* sendAnonymous("GET", "/api/v1/auth/me", undefined, {
        cookie: `__Host-session=${known.cookie?.value}`
      })
      expect(me.status).toBe(200)

      // A fresh device cookie comes with each sign-in, and it works from another address too.
      expect(known.deviceCookie?.value).not.toBe(device)
      expect(known.deviceCookie?.attributes).toEqual(
        expect.arrayContaining([
          "httponly",
          "secure",
          "samesite=strict",
          "path=/",
          `max-age=${Duration.toSeconds(deviceCookieMaxAge)}`
        ])
      )
      expect((yield* signInFrom("203.0.113.7", adminPassword, known.deviceCookie?.value)).status).toBe(200)
      // The ceiling still holds for every other device.
      expect((yield* signInFrom("198.51.100.2", adminPassword)).status).toBe(429)
    }))

  it.effect("a known device is refused after its own limit of failures; other known devices are not", () =>
    Effect.gen(function*() {
      yield* afterEarlierTests
      const guessed = yield* knownDevice("198.51.100.10")
      const other = yield* knownDevice("198.51.100.11")
      yield* lockAccountFrom("192.0.3")

      // Exempt from the account's ceiling, the device gets its own tries, then no more.
      for (let i = 0; i < limits.perDevice.limit; i++) {
        expect((yield* signInFrom("198.51.100.10", `wrong on the device ${i}`, guessed)).status).toBe(401)
      }
      const right = yield* signInFrom("198.51.100.10", adminPassword, guessed)
      const wrong = yield* signInFrom("198.51.100.10", "wrong again", guessed)
      expect(right.status).toBe(429)
      // The refusal tells nothing about the password.
      expect(wrong.status).toBe(429)
      expect(wrong.body).toEqual(right.body)
      expect(headersOf(wrong)).toEqual(headersOf(right))
      expect(right.deviceCookie).toBeUndefined()
      const retryAfter = Number(right.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)

      expect((yield* signInFrom("198.51.100.10", adminPassword, other)).status).toBe(200)
    }))

  it.effect("a forged, altered or another user's device cookie gives no exemption", () =>
    Effect.gen(function*() {
      yield* afterEarlierTests
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into users (email, name, password_hash)
        select 'other@example.com', 'Other', password_hash from users where email = ${adminEmail}
        on conflict (email) do nothing`
      const othersDevice = yield* knownDevice("198.51.100.20", "other@example.com")
      const own = yield* knownDevice("198.51.100.21")
      const [userId, nonce, expires, signature] = own!.split(".") as [string, string, string, string]
      const [otherId] = othersDevice!.split(".") as [string]
      const replaced = (i: number, part: string) => own!.split(".").map((p, j) => j === i ? part : p).join(".")
      const altered = (text: string) => (text[0] === "A" ? "B" : "A") + text.slice(1)
      const [{ passwordHash }] = yield* sql<{ passwordHash: string }>`
        select password_hash as "passwordHash" from users where email = ${adminEmail}`
      const signedWith = (key: Buffer) =>
        `${userId}.${nonce}.${expires}.${
          createHmac("sha256", key).update(`device-cookie v2\n${userId}\n${passwordHash}\n${nonce}\n${expires}`)
            .digest("base64url")
        }`

      yield* lockAccountFrom("192.0.4")
      const refused = {
        "another user's cookie": othersDevice!,
        "another user's id": replaced(0, otherId),
        "another nonce": replaced(1, altered(nonce)),
        "a later expiry": replaced(2, String(Number(expires) + 86_400)),
        "an altered signature": replaced(3, altered(signature)),
        "a shortened signature": replaced(3, signature.slice(0, 20)),
        "another key": signedWith(randomBytes(32)),
        "no signature": `${userId}.${nonce}.${expires}`,
        "garbage": "not-a-device-cookie"
      }
      for (const [what, cookie] of Object.entries(refused)) {
        const response = yield* signInFrom("198.51.100.21", adminPassword, cookie)
        expect({ what, status: response.status }).toEqual({ what, status: 429 })
      }
      expect((yield* signInFrom("198.51.100.21", adminPassword, own)).status).toBe(200)
    }))

  it.effect("a new password revokes the device cookies issued before it", () =>
    Effect.gen(function*() {
      yield* afterEarlierTests
      const before = yield* knownDevice("198.51.100.50")
      // The same password set again: a new hash all the same, as after any reset.
      const reset = Effect.flatMap(Administrators, (admins) => admins.resetPassword(adminEmail, adminPassword))
      expect(yield* reset.pipe(Effect.provide(Administrators.layer))).toBe(true)
      yield* lockAccountFrom("192.0.6")
      expect((yield* signInFrom("198.51.100.50", adminPassword, before)).status).toBe(429)
    }))

  it.effect("a device cookie past its 90 days gives no exemption", () =>
    Effect.gen(function*() {
      yield* afterEarlierTests
      const device = yield* knownDevice("198.51.100.40")
      yield* TestClock.adjust(Duration.sum(deviceCookieMaxAge, Duration.seconds(1)))
      yield* lockAccountFrom("192.0.5")
      expect((yield* signInFrom("198.51.100.40", adminPassword, device)).status).toBe(429)
    }))
})
