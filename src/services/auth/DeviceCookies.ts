/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser
 * that signed in as a user carries `__Host-device`, signed with a key of the service's own, and
 * is then exempt from that account's ceiling on failed sign-ins, under a limit of its own
 * (SignInThrottle). Guessing from unknown devices still meets the ceiling; the owner's browser
 * still signs in. The cookie is `<user id>.<nonce>.<expiry in epoch seconds>.<HMAC-SHA256>`:
 * nothing is stored per cookie, and a cookie of another user, past its expiry, or altered in any
 * part is no cookie at all.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

import type { UserId } from "../../domain/Auth.js"
import { ServerSecretsRepo } from "../../persistence/ServerSecretsRepo.js"
import { UsersRepo } from "../../persistence/UsersRepo.js"

export const deviceCookie = "__Host-device"

/** How long a device stays known after its last successful sign-in. */
export const deviceCookieMaxAge = Duration.days(90)

/** What a device cookie is signed for: the user, as long as their password stays the same. */
interface DeviceUser {
  readonly id: UserId
  readonly passwordHash: string
}

export class DeviceCookies extends Context.Service<DeviceCookies>()("DeviceCookies", {
  make: Effect.gen(function*() {
    const secrets = yield* ServerSecretsRepo
    const users = yield* UsersRepo

    // Read once per process, when first needed: a failed read (database away) is tried again.
    let key: Buffer | undefined
    const signingKey = Effect.suspend(() =>
      key !== undefined ?
        Effect.succeed(key) :
        Effect.tap(secrets.obtain("device-cookies"), (read) =>
          Effect.sync(() => {
            key = read
          }))
    )
    // The user's password hash is signed in too: a new password (a reset after a compromise)
    // revokes every device cookie issued before it.
    const mac = (secret: Buffer, user: DeviceUser, nonce: string, expires: string) =>
      createHmac("sha256", secret).update(`device-cookie v2\n${user.id}\n${user.passwordHash}\n${nonce}\n${expires}`)
        .digest()

    return {
      /** A new cookie value for a browser that has just signed in as `userId`. */
      issue: Effect.fn("DeviceCookies.issue")(function*(user: DeviceUser) {
        const nonce = randomBytes(16).toString("base64url")
        const now = yield* Clock.currentTimeMillis
        const expires = String(Math.floor((now + Duration.toMillis(deviceCookieMaxAge)) / 1000))
        const signature = mac(yield* signingKey, user, nonce, expires).toString("base64url")
        return `${user.id}.${nonce}.${expires}.${signature}`
      }),

      /**
       * The device of `cookie` when it is a valid cookie of the user `email` names: its nonce,
       * which keys the device's own failure counter. Depends on the cookie and the e-mail only,
       * never on the password.
       */
      trustedFor: Effect.fn("DeviceCookies.trustedFor")(function*(cookie: string | undefined, email: string) {
        const parts = cookie?.split(".") ?? []
        if (parts.length !== 4) return Option.none<string>()
        const [userId, nonce, expires, signature] = parts as [string, string, string, string]
        const user = yield* users.findByEmail(email)
        if (Option.isNone(user) || user.value.id !== userId) return Option.none<string>()
        const given = Buffer.from(signature, "base64url")
        const expected = mac(yield* signingKey, user.value, nonce, expires)
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none<string>()
        return Number(expires) * 1000 > (yield* Clock.currentTimeMillis) ? Option.some(nonce) : Option.none<string>()
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([ServerSecretsRepo.layer, UsersRepo.layer]))
}
