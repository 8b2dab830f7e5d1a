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
 * A transaction whose connection is lost under it fails as its body did (a 503), not with the
 * defect of the ROLLBACK that can no longer be sent (`lostConnectionFailure`).
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
import { Cause, Clock, Effect, Effectable, Option, Random } from "effect"
import type { SqlConnection } from "effect/sql"
import { SqlClient, SqlError, Statement } from "effect/sql"

import { isConnectionFailure, isTransactionConflict, recognizeTransactions } from "./DatabaseErrors.js"

/** At most this many runs of a conflicting transaction or statement, the first included. */
export const maxTries = 6

/**
 * A conflict, as @effect/sql-pg reports it: a SqlError whose reason is `DeadlockError` (40P01)
 * or `SerializationError` (40001), the server's SQLSTATE kept in the reason's cause.
 */
const isConflict = (error: unknown): error is SqlError.SqlError =>
  SqlError.isSqlError(error) && isTransactionConflict(error)

/**
 * The conflict that ended a try, whether it failed as a SqlError or a caller inside the
 * transaction turned it into a defect (`orUnavailable` does); none when the try was interrupted.
 */
const conflictOf = <E>(cause: Cause.Cause<E>): Option.Option<SqlError.SqlError> => {
  if (Cause.hasInterrupts(cause)) return Option.none()
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (isConflict(error)) return Option.some(error)
  }
  return Option.none()
}

/** The clock of the process, whatever Clock the caller's context holds (a test's TestClock). */
const realClock = Clock.Clock.defaultValue()

/**
 * Runs `effect` again while it ends in a conflict, at most `maxTries` times in all, waiting
 * 10, 20, 40, 80, 160 ms (each scaled by a random 0.5-1.5, so the two sides of a deadlock do
 * not meet again) on the real clock.
 */
export const retryingConflicts = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  tries = 1
): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.catchCause(effect, (cause) => {
    const conflict = conflictOf(cause)
    if (Option.isNone(conflict)) return Effect.failCause(cause)
    if (tries === maxTries) {
      return Effect.andThen(
        Effect.logWarning(`A database conflict persisted after ${maxTries} tries`, conflict.value),
        Effect.fail(conflict.value)
      )
    }
    return Random.next.pipe(
      Effect.flatMap((random) => Effect.sleep(10 * 2 ** (tries - 1) * (0.5 + random))),
      Effect.provideService(Clock.Clock, realClock),
      Effect.andThen(retryingConflicts(effect, tries + 1))
    )
  })

/**
 * A statement of the client whose runs go through `retrying`: the statement itself as an
 * effect, and `raw`, `values`, `unprepared` and the like. It is the client's statement in every
 * other respect (the same segments, so it can be interpolated into another statement, and the
 * same compiled SQL).
 */
class RetryingStatement<A> extends Effectable.Class<ReadonlyArray<A>, SqlError.SqlError> {
  constructor(
    readonly statement: Statement.Statement<A>,
    readonly retrying: <X>(run: Effect.Effect<X, SqlError.SqlError>) => Effect.Effect<X, SqlError.SqlError>
  ) {
    super()
  }
  asEffect(): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> {
    return this.retrying(this.statement)
  }
  get raw() {
    return this.retrying(this.statement.raw)
  }
  get withoutTransform() {
    return this.retrying(this.statement.withoutTransform)
  }
  get values() {
    return this.retrying(this.statement.values)
  }
  get valuesUnprepared() {
    return this.retrying(this.statement.valuesUnprepared)
  }
  get unprepared() {
    return this.retrying(this.statement.unprepared)
  }
  // A stream is a read, and what it has emitted cannot be taken back.
  get stream() {
    return this.statement.stream
  }
  compile(withoutTransform?: boolean | undefined) {
    return this.statement.compile(withoutTransform)
  }
}

/**
 * A transaction whose connection was lost (its server died, or terminated it): the server rolls
 * it back by itself, but the client's ROLLBACK (or RELEASE SAVEPOINT) fails on the dead
 * connection, `withTransaction` makes that a defect, and its body's failure one too: a 500. The
 * caller hears the body's own failure instead (a 503 through `orUnavailable`), or without one
 * the lost connection as a failure.
 */
const lostConnectionFailure = <A, E, R>(
  withTransaction: (body: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError.SqlError, R>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.suspend(() => {
    let failed: Cause.Cause<E> | undefined
    const body = Effect.onError(effect, (cause) => Effect.sync(() => (failed = cause)))
    return Effect.catchCause(withTransaction(body), (cause) => {
      const lost = cause.reasons.find((reason): reason is Cause.Die =>
        Cause.isDieReason(reason) && SqlError.isSqlError(reason.defect) && isConnectionFailure(reason.defect)
      )
      if (lost === undefined) return Effect.failCause(cause)
      return failed !== undefined ? Effect.failCause(failed) : Effect.fail(lost.defect as SqlError.SqlError)
    })
  })

const wrapped = new WeakMap<SqlClient.SqlClient, SqlClient.SqlClient>()

/** `client` (a PgClient keeps its `listen`, `notify`, `json` and `config`) with conflicts retried. */
export const withConflictRetries = <C extends SqlClient.SqlClient>(client: C): C => {
  const known = wrapped.get(client)
  if (known !== undefined) return known as C
  recognizeTransactions(client)
  const inTransaction = Effect.map(Effect.serviceOption(client.transactionService), Option.isSome)
  // Inside a transaction a conflict aborted the whole of it: the outermost withTransaction retries.
  const retrying = <X>(run: Effect.Effect<X, SqlError.SqlError>): Effect.Effect<X, SqlError.SqlError> =>
    Effect.flatMap(inTransaction, (inside) => inside ? run : retryingConflicts(run))
  /** The client's statement, each run of it retried on a conflict (a statement outside a transaction). */
  const retryingStatement = <A>(statement: Statement.Statement<A>): Statement.Statement<A> =>
    Object.assign(new RetryingStatement(statement, retrying), Statement.fragment(statement.segments))

  function sql<A extends object = SqlConnection.Row>(
    strings: TemplateStringsArray,
    ...args: Array<unknown>
  ): Statement.Statement<A>
  function sql(value: string): Statement.Identifier
  function sql<A extends object>(
    strings: TemplateStringsArray | string,
    ...args: Array<unknown>
  ): Statement.Statement<A> | Statement.Identifier {
    return typeof strings === "string" ? client(strings) : retryingStatement(client<A>(strings, ...args))
  }

  const self = Object.assign(sql, client, {
    unsafe: <A extends object>(statement: string, params?: ReadonlyArray<unknown> | undefined) =>
      retryingStatement(client.unsafe<A>(statement, params)),
    withTransaction: <R, E, A>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(
        inTransaction,
        (inside) =>
          inside
            ? lostConnectionFailure((body) => client.withTransaction(body), effect)
            : retryingConflicts(lostConnectionFailure((body) => client.withTransaction(body), effect))
      ),
    withoutTransforms: () => withConflictRetries(client.withoutTransforms())
  })
  Object.defineProperty(self, "safe", { value: self, enumerable: true })
  wrapped.set(client, self)
  return self
}

/** The app's SqlClient, with conflicts retried: what repositories take instead of `SqlClient.SqlClient`. */
export const RetryingSqlClient: Effect.Effect<SqlClient.SqlClient, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  withConflictRetries
)
