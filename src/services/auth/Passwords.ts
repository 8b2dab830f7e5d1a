/**
 * Password hashing with scrypt at OWASP's parameters (N=2^17, r=8, p=1). Each hash takes
 * 128 MiB and a few hundred milliseconds, so at most two run at once.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

import { Effect } from "effect"

const cost = { N: 2 ** 17, r: 8, p: 1 }
const keyLength = 64
const maxmem = 256 * 1024 * 1024

const derive = (password: string, salt: Buffer, params: typeof cost) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { ...params, maxmem }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key)))
  })

export const minimumPasswordLength = 12

export class Passwords extends Effect.Service<Passwords>()("Passwords", {
  effect: Effect.gen(function*() {
    const permits = yield* Effect.makeSemaphore(2)

    const hash = (password: string) =>
      Effect.gen(function*() {
        const salt = randomBytes(16)
        const key = yield* derive(password, salt, cost)
        return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`
      }).pipe(permits.withPermits(1))

    const verify = (password: string, stored: string) =>
      Effect.gen(function*() {
        const [scheme, N, r, p, salt, expected] = stored.split("$")
        if (scheme !== "scrypt" || !salt || !expected) return false
        const key = yield* derive(password, Buffer.from(salt, "base64"), { N: Number(N), r: Number(r), p: Number(p) })
        const want = Buffer.from(expected, "base64")
        return key.length === want.length && timingSafeEqual(key, want)
      }).pipe(permits.withPermits(1))

    // Verified against when the e-mail is unknown, so both failures take the same time.
    const decoy = yield* hash(randomBytes(32).toString("hex"))

    return { hash, verify, decoy } as const
  })
}) {}
