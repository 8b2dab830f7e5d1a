/**
 * A transaction of the test's own holding a table's exclusive lock, on its own connection to the
 * suite's database: what stalls the service's next read of that table (a refresh, a query) while
 * its writes, which do not read it, go through.
 */
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"

import { TestDatabaseUrl } from "./TestDatabase.js"

/** A connection of the test's own to the service's database, closed with the test's scope. */
export const ownConnection = Effect.flatMap(
  TestDatabaseUrl,
  (url) => PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
).pipe(Effect.provide(Reactivity.layer))

/** Returns once `table` is locked; the effect it returns ends the transaction and waits for its end. */
export const holdTableLock = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* ownConnection
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* sql.withTransaction(
      sql.unsafe(`lock table ${table} in access exclusive mode`).pipe(
        Effect.andThen(Deferred.succeed(locked, undefined)),
        Effect.andThen(Deferred.await(release))
      )
    ).pipe(Effect.forkChild)
    yield* Deferred.await(locked)
    return Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(holder))
  })
