/**
 * The locks that keep a conditional admin write atomic (src/http/PreconditionsLive.ts): between
 * its `If-Match` check and its write, no other API write to the same resource runs. A write
 * holds its resource's lock `shared`, so writes without `If-Match` still run side by side as
 * before; a conditional one holds it `exclusive`, alone.
 *
 * - In the process: a readers-writer lock per key, first come first served (a waiting exclusive
 *   holder is not overtaken by later shared ones).
 * - On a PostgreSQL server, where several instances may serve the API, also an advisory lock of
 *   the key, held on a connection of a small pool of its own: a holder never takes one of the
 *   app's connections, so holders waiting for their lock can never starve the handlers that would
 *   release it. A wait is bounded (`lock_timeout`), then 503.
 * - On the embedded database (PGlite), only the first: one process owns it, and its one session,
 *   shared by every connection, holds every advisory lock at once (so they exclude nothing).
 */
import { createHash } from "node:crypto"

import { PgPool } from "@effect/sql-pg"
import { Clock, Context, Effect, Layer, Option, Scope, Semaphore } from "effect"
import type { SqlError } from "effect/sql"

import { ServiceUnavailable } from "../domain/Errors.js"
import { AppConfig } from "../runtime/Config.js"
import { poolSize } from "./Database.js"
import { orUnavailable, sqlState } from "./DatabaseErrors.js"
import { databaseConnection } from "./DatabaseHosts.js"

export type LockMode = "shared" | "exclusive"

/** More shared holders of one key than a process ever has at once. */
const anyNumber = 2 ** 30

/** The first key of every resource lock (`pg_advisory_lock(int4, int4)`): "ETAG". */
const lockClass = 0x45544147

/** How long a write waits for another instance's hold of its resource before answering 503. */
const lockTimeout = "15s"

/** The second key: 32 bits of the key's SHA-256. Two keys that meet only wait for each other. */
const lockKeyOf = (key: string) => createHash("sha256").update(key).digest().readInt32BE(0)

const realClock = Clock.Clock.defaultValue()

const tooLong = new ServiceUnavailable({
  message: "Another change to this resource is taking long; try again shortly"
})

/** A process's lock of one key; `turnstile` lets arrivals in one at a time, in order. */
interface LocalLock {
  users: number
  readonly turnstile: Semaphore.Semaphore
  readonly holders: Semaphore.Semaphore
}

export class ResourceLock extends Context.Service<ResourceLock>()("ResourceLock", {
  make: Effect.gen(function*() {
    const { databaseUrl } = yield* AppConfig
    const locals = new Map<string, LocalLock>()

    const holdLocally = (key: string, mode: LockMode) =>
      Effect.gen(function*() {
        const lock = yield* Effect.acquireRelease(
          Effect.sync(() => {
            const lock = locals.get(key) ??
              { users: 0, turnstile: Semaphore.makeUnsafe(1), holders: Semaphore.makeUnsafe(anyNumber) }
            lock.users++
            locals.set(key, lock)
            return lock
          }),
          (lock) => Effect.sync(() => (--lock.users === 0 ? locals.delete(key) : undefined))
        )
        yield* lock.turnstile.withPermits(1)(lock.holders.takeScoped(mode === "exclusive" ? anyNumber : 1))
      })

    // The pool connects on first use; its timers run on the real clock, as the app's pool's do.
    const pool = Option.isNone(databaseUrl) ? undefined : yield* PgPool.make({
      // The primary's, with several hosts (DatabaseHosts): an advisory lock on a standby excludes nothing.
      ...yield* databaseConnection(databaseUrl.value),
      maxConnections: poolSize,
      idleTimeout: "10 seconds",
      connectTimeout: "5 seconds",
      applicationName: "status-page resource locks",
      startupParameters: { lock_timeout: lockTimeout }
    }).pipe(Effect.orDie, Effect.provideService(Clock.Clock, realClock))

    const inDatabase = (error: SqlError.SqlError) =>
      sqlState(error) === "55P03" ? Effect.fail(tooLong) : orUnavailable(Effect.fail(error))

    const holdInDatabase = (pool: PgPool.PgPool, key: string, mode: LockMode) =>
      Effect.gen(function*() {
        const connection = yield* pool.reserve
        // Registered before the lock is asked for: a wait cut short may still have been granted.
        // The connection holds no other lock, so all of its go.
        yield* Effect.addFinalizer(() =>
          connection.query("select pg_advisory_unlock_all()").pipe(
            Effect.catch(() => pool.invalidate(connection))
          )
        )
        const lock = mode === "exclusive" ? "pg_advisory_lock" : "pg_advisory_lock_shared"
        yield* connection.query(`select ${lock}($1::int4, $2::int4)`, [lockClass, lockKeyOf(key)])
      }).pipe(Effect.catch(inDatabase), Effect.provideService(Clock.Clock, realClock))

    /** Waits until the lock is held; it is released when the scope closes (in the database first). */
    const hold = (key: string, mode: LockMode) =>
      (pool === undefined
        ? holdLocally(key, mode)
        : Effect.andThen(holdLocally(key, mode), holdInDatabase(pool, key, mode))).pipe(
          Effect.withSpan("ResourceLock.hold", { attributes: { key, mode } })
        )

    /** Runs `effect` holding the lock of `key` in `mode`; released as soon as it ends. */
    const withLock = (key: string, mode: LockMode) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Scope.make(),
        (scope) => Effect.andThen(Scope.provide(scope)(hold(key, mode)), effect),
        (scope, exit) => Scope.close(scope, exit)
      )

    return { withLock }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
