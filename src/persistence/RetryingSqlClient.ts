/**
 * The database client every repository, service and worker writes through: the app's client,
 * with conflicts retried. PostgreSQL aborts a transaction as a deadlock victim (40P01) when two
 * writers lock the same rows in opposite orders, or as a serialization failure (40001); the
 * work rolled back whole, and running it again is the remedy. Here that is a property of the
 * client, not of each caller, so none can forget it:
 *
 * - an outermost `withTransaction` runs its whole body again (a nested one is a savepoint inside
 *   a transaction the outer level retries);
 * - a statement outside a transaction (its own implicit transaction, such as a delete that
 *   cascades) runs again.
 *
 * Tries are bounded (`maxTries`) with a jittered exponential back-off on the real clock: the
 * conflict is between real connections, also under a test's TestClock. When the tries run out,
 * the conflict fails as a `SqlError`, which `orUnavailable` answers as a 503 the client may
 * retry, never a 500. A transaction's body must therefore be safe to run again: it may not keep
 * what an aborted try left in memory (docs/architecture.md, "Writes").
 *
 * Lint forbids taking `SqlClient.SqlClient` or `PgClient.PgClient` anywhere else in src/ (the
 * migrations excepted: the migrator runs its own transactions once, at start).
 */
import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Cause, Clock, Effect, Option, Random } from "effect"

import { isTransactionConflict } from "./DatabaseErrors.js"

/** At most this many runs of a conflicting transaction or statement, the first included. */
export const maxTries = 6

const isConflict = (error: unknown): error is SqlError => error instanceof SqlError && isTransactionConflict(error)

/**
 * The conflict that ended a try, whether it failed as a SqlError or a caller inside the
 * transaction turned it into a defect (`orUnavailable` does); none when the try was interrupted.
 */
const conflictOf = <E>(cause: Cause.Cause<E>): Option.Option<SqlError> =>
  Cause.isInterrupted(cause) ?
    Option.none() :
    Cause.find(cause, (reason) => {
      const error = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
      return isConflict(error) ? Option.some(error) : Option.none()
    })

const realClock = Clock.make()

/**
 * Runs `effect` again while it ends in a conflict, at most `maxTries` times in all, waiting
 * 10, 20, 40, 80, 160 ms (each scaled by a random 0.5-1.5, so the two sides of a deadlock do
 * not meet again) on the real clock.
 */
export const retryingConflicts = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  tries = 1
): Effect.Effect<A, E | SqlError, R> =>
  Effect.catchAllCause(effect, (cause) => {
    const conflict = conflictOf(cause)
    if (Option.isNone(conflict)) return Effect.failCause(cause)
    if (tries === maxTries) {
      return Effect.zipRight(
        Effect.logWarning(`A database conflict persisted after ${maxTries} tries`, conflict.value),
        Effect.fail(conflict.value)
      )
    }
    return Random.next.pipe(
      Effect.flatMap((random) => Effect.sleep(10 * 2 ** (tries - 1) * (0.5 + random))),
      Effect.withClock(realClock),
      Effect.zipRight(retryingConflicts(effect, tries + 1))
    )
  })

/** The fields of a statement the client makes, which a client of the same behaviour is built from. */
interface StatementParts {
  readonly acquirer: Connection.Acquirer
  readonly compiler: Statement.Compiler
  readonly spanAttributes: ReadonlyArray<readonly [string, unknown]>
  readonly transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

const partsOf = (client: SqlClient.SqlClient): StatementParts => {
  const parts = client`select 1` as unknown as Partial<StatementParts>
  if (parts.acquirer === undefined || parts.compiler === undefined || parts.spanAttributes === undefined) {
    throw new Error("RetryingSqlClient: this @effect/sql version's statements do not expose their connection")
  }
  return parts as StatementParts
}

const retryingConnections = new WeakMap<Connection, Connection>()

/** `connection` with each statement run again on a conflict (a statement outside a transaction). */
const retryingConnection = (connection: Connection): Connection => {
  const known = retryingConnections.get(connection)
  if (known !== undefined) return known
  const retrying = makeRetryingConnection(connection)
  retryingConnections.set(connection, retrying)
  return retrying
}

const makeRetryingConnection = (connection: Connection): Connection => ({
  execute: (sql, params, transformRows) => retryingConflicts(connection.execute(sql, params, transformRows)),
  executeRaw: (sql, params) => retryingConflicts(connection.executeRaw(sql, params)),
  executeValues: (sql, params) => retryingConflicts(connection.executeValues(sql, params)),
  executeUnprepared: (sql, params, transformRows) =>
    retryingConflicts(connection.executeUnprepared(sql, params, transformRows)),
  // A stream is a read, and what it has emitted cannot be taken back.
  executeStream: (sql, params, transformRows) => connection.executeStream(sql, params, transformRows)
})

const inTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome)

const wrapped = new WeakMap<SqlClient.SqlClient, SqlClient.SqlClient>()

/** `client` (a PgClient keeps its `listen`, `notify`, `json` and `config`) with conflicts retried. */
export const withConflictRetries = <C extends SqlClient.SqlClient>(client: C): C => {
  const known = wrapped.get(client)
  if (known !== undefined) return known as C
  const { acquirer, compiler, spanAttributes, transformRows } = partsOf(client)
  // Inside a transaction a conflict aborted the whole of it: the outermost withTransaction retries.
  const retryingAcquirer: Connection.Acquirer = Effect.flatMap(
    inTransaction,
    (inside) => inside ? acquirer : Effect.map(acquirer, retryingConnection)
  )
  const statements = Statement.make(retryingAcquirer, compiler, spanAttributes, transformRows)
  const ownStatementHelpers = { ...statements }
  const self = Object.assign(statements, client, ownStatementHelpers, {
    withTransaction: <R, E, A>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(
        inTransaction,
        (inside) => inside ? client.withTransaction(effect) : retryingConflicts(client.withTransaction(effect))
      ),
    withoutTransforms: () => withConflictRetries(client.withoutTransforms())
  }) as unknown as C
  ;(self as { safe: unknown }).safe = self
  wrapped.set(client, self)
  return self
}

/** The app's SqlClient, with conflicts retried: what repositories take instead of `SqlClient.SqlClient`. */
export const RetryingSqlClient: Effect.Effect<SqlClient.SqlClient, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  withConflictRetries
)
