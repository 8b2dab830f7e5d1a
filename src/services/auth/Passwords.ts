/**
 * Password hashing with scrypt at OWASP's parameters (N=2^17, r=8, p=1). Each hash takes
 * 128 MiB and a few hundred milliseconds, so at most two run at once, and only a few sign-ins
 * may wait for them: a burst beyond that is refused at once instead of queueing without end.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

import { Context, Effect, Layer, Semaphore } from "effect"

import { TooManyRequests } from "../../domain/Errors.js"

const cost = { N: 2 ** 17, r: 8, p: 1 }
const keyLength = 64
const maxmem = 256 * 1024 * 1024

// Uninterruptible: a started hash runs to its end anyway, so it keeps its permit until then
// (a client that hangs up must not make room for another hash while its own still runs).
const derive = (password: string, salt: Buffer, params: typeof cost) =>
  Effect.uninterruptible(Effect.callback<Buffer>((resume) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      keyLength,
      { ...params, maxmem },
      (error, key) => resume(error ? Effect.die(error) : Effect.succeed(key))
    )
  }))

export const minimumPasswordLength = 12

/** How many hashes run at once, and how many password checks may wait for one. */
export const PasswordHashing = Context.Reference<{ readonly concurrency: number; readonly maxWaiting: number }>(
  "PasswordHashing",
  { defaultValue: () => ({ concurrency: 2, maxWaiting: 16 }) }
)

const busy = new TooManyRequests({ message: "Too many sign-ins at once; try again in a second", retryAfterSeconds: 1 })

export class Passwords extends Context.Service<Passwords>()("Passwords", {
  make: Effect.gen(function*() {
    const { concurrency, maxWaiting } = yield* PasswordHashing
    const permits = yield* Semaphore.make(concurrency)
    let checks = 0 // running or waiting

    /** Runs a password check under a permit, or fails with TooManyRequests when the queue is full. */
    const bounded = <A, E, R>(check: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.suspend(() => checks >= concurrency + maxWaiting ? Effect.fail(busy) : Effect.sync(() => checks++)),
        () => permits.withPermits(1)(check),
        () => Effect.sync(() => checks--)
      )

    // Not bounded: only operators hash (first administrator, password reset), and they wait.
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
      }).pipe(bounded)

    // Verified against when the e-mail is unknown, so both failures take the same time.
    const decoy = yield* hash(randomBytes(32).toString("hex"))

    return { hash, verify, decoy } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
