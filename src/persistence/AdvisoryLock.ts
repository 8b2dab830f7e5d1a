/**
 * A PostgreSQL advisory lock held on a connection of its own, for a role only one instance may
 * play at a time (the check scheduler).
 */
import { Effect, Schedule } from "effect"

import { RetryingSqlClient } from "./RetryingSqlClient.js"

/**
 * Waits until the lock `key` is this process's, on a reserved connection, and gives it up when
 * the scope closes (the connection goes back to the pool, so the unlock is explicit). Answers an
 * effect that fails when the lock is lost: the lock lives as long as the connection, so a query
 * on it failing ends the holding.
 */
export const holdAdvisoryLock = Effect.fnUntraced(function*(key: number) {
  const sql = yield* RetryingSqlClient
  const connection = yield* sql.reserve
  const locked = connection.execute("select pg_try_advisory_lock($1) as locked", [key], undefined).pipe(
    Effect.map((rows) => rows[0]?.locked === true)
  )
  yield* locked.pipe(Effect.repeat({ until: (held) => held, schedule: Schedule.spaced("2 seconds") }))
  yield* Effect.addFinalizer(() =>
    connection.execute("select pg_advisory_unlock($1)", [key], undefined).pipe(Effect.ignore)
  )
  return connection.execute("select 1", [], undefined).pipe(Effect.repeat(Schedule.spaced("2 seconds")))
})
