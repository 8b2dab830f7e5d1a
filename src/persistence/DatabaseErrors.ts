/**
 * What a failed query means for the caller: the database being away, or a conflict that
 * outlasted `RetryingSqlClient`'s tries, is a 503 the client can retry; anything else (a bug, a
 * row that does not decode) dies loudly and is logged.
 */
import type { Schema } from "effect"
import { Context, Effect, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

import { ServiceUnavailable } from "../domain/Errors.js"

const connectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"])

/**
 * What the driver or the server said beneath a SqlError: @effect/sql-pg keeps the network
 * error, or the server's ErrorResponse fields (`code` is the SQLSTATE), as its reason's cause.
 */
const causeOf = (error: SqlError.SqlError) => error.reason.cause as { code?: unknown; message?: unknown } | undefined

/**
 * Network errors, SQLSTATE class 08 (connection exception) and 57P (shutdown, terminated), a
 * write refused by a server that turned read-only (25006: a demoted or fenced primary, whose
 * connection DatabaseHosts drops), and what the driver itself classifies as a connection failure
 * (a connection that timed out, closed or broke while connecting or mid-query).
 */
export const isConnectionFailure = (error: SqlError.SqlError): boolean => {
  const cause = causeOf(error)
  const code = typeof cause?.code === "string" ? cause.code : ""
  const message = typeof cause?.message === "string" ? cause.message : ""
  return error.reason._tag === "ConnectionError" ||
    connectionCodes.has(code) ||
    code.startsWith("08") ||
    code.startsWith("57P") ||
    code === "25006" ||
    /connection terminated|timeout exceeded when trying to connect|too many connections/i.test(message)
}

/** The SQLSTATE of a failed query, when the server sent one. */
export const sqlState = (error: SqlError.SqlError): string | undefined => {
  const code = causeOf(error)?.code
  return typeof code === "string" ? code : undefined
}

/** A row referenced something another transaction deleted meanwhile (SQLSTATE 23503). */
export const isForeignKeyViolation = (error: SqlError.SqlError): boolean => sqlState(error) === "23503"
export const isUniqueViolation = (error: SqlError.SqlError): boolean => sqlState(error) === "23505"

export const databaseUnavailable = new ServiceUnavailable({
  message: "The database is unavailable; try again shortly"
})

/**
 * A deadlock (40P01) or serialization failure (40001): PostgreSQL rolled the transaction back,
 * and running it again is the remedy (`RetryingSqlClient`). One that reaches `orUnavailable`
 * outside a transaction outlasted those tries: the change did not happen, and another try later
 * will likely succeed. @effect/sql-pg classifies exactly these two SQLSTATEs as the reasons
 * `DeadlockError` and `SerializationError`.
 */
export const isTransactionConflict = (error: SqlError.SqlError) =>
  error.reason._tag === "DeadlockError" || error.reason._tag === "SerializationError" ||
  ["40P01", "40001"].includes(sqlState(error) ?? "")

export const databaseBusy = new ServiceUnavailable({
  message: "The database is busy with conflicting changes; try again shortly"
})

type QueryError = SqlError.SqlError | Schema.SchemaError

const isQueryError = (error: unknown): error is QueryError => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return tag === "SqlError" || tag === "SchemaError"
}

/**
 * The transaction services of the clients `RetryingSqlClient` wraps: each client marks its
 * transactions with a service of its own, which the fiber's context holds while it runs in one.
 */
const transactionServices = new Set<SqlClient.SqlClient["transactionService"]>()

/** Lets `orUnavailable` tell when it runs inside a transaction of `client` (`RetryingSqlClient` calls it). */
export const recognizeTransactions = (client: SqlClient.SqlClient): void => {
  transactionServices.add(client.transactionService)
}

/** Whether the fiber runs inside a transaction of one of those clients. */
const inTransaction = Effect.map(Effect.context<never>(), (context) => {
  for (const service of transactionServices) {
    if (Option.isSome(Context.getOption(context, service))) return true
  }
  return false
})

/**
 * Turns the query errors of `effect` into a 503 when the database is away or a conflict outlasted
 * its retries, a defect otherwise.
 */
export const orUnavailable = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R> =>
  Effect.catchIf(
    effect,
    (error): error is E & QueryError => isQueryError(error),
    (error) =>
      error._tag === "SqlError" && isConnectionFailure(error)
        ? Effect.fail(databaseUnavailable)
        : error._tag === "SqlError" && isTransactionConflict(error)
        // Inside a transaction, the conflict goes on up to the withTransaction that retries it.
        ? Effect.flatMap(
          inTransaction,
          (inside) => inside ? Effect.die(error) : Effect.fail(databaseBusy)
        )
        : Effect.die(error)
  ) as Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R>
