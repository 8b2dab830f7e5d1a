/**
 * What a failed query means for the caller: the database being away, or a conflict that
 * outlasted `RetryingSqlClient`'s tries, is a 503 the client can retry; anything else (a bug, a
 * row that does not decode) dies loudly and is logged.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { ParseResult } from "effect"
import { Effect, Option } from "effect"

import { ServiceUnavailable } from "../domain/Errors.js"

const connectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"])

/** Network errors, SQLSTATE class 08 (connection exception) and 57P (shutdown, terminated). */
export const isConnectionFailure = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  const message = typeof cause?.message === "string" ? cause.message : ""
  return connectionCodes.has(code) ||
    code.startsWith("08") ||
    code.startsWith("57P") ||
    /connection terminated|timeout exceeded when trying to connect|too many connections/i.test(message)
}

/** The SQLSTATE of a failed query, when the server sent one. */
export const sqlState = (error: SqlError): string | undefined => {
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/** A row referenced something another transaction deleted meanwhile (SQLSTATE 23503). */
export const isForeignKeyViolation = (error: SqlError): boolean => sqlState(error) === "23503"

export const databaseUnavailable = new ServiceUnavailable({
  message: "The database is unavailable; try again shortly"
})

/**
 * A deadlock (40P01) or serialization failure (40001): PostgreSQL rolled the transaction back,
 * and running it again is the remedy (`RetryingSqlClient`). One that reaches `orUnavailable`
 * outside a transaction outlasted those tries: the change did not happen, and another try later
 * will likely succeed.
 */
export const isTransactionConflict = (error: SqlError) => ["40P01", "40001"].includes(sqlState(error) ?? "")

export const databaseBusy = new ServiceUnavailable({
  message: "The database is busy with conflicting changes; try again shortly"
})

type QueryError = SqlError | ParseResult.ParseError

const isQueryError = (error: unknown): error is QueryError => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return tag === "SqlError" || tag === "ParseError"
}

/**
 * Turns the query errors of `effect` into a 503 when the database is away or a conflict outlasted
 * its retries, a defect otherwise.
 */
export const orUnavailable = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R> =>
  Effect.catchIf(effect, isQueryError, (error) =>
    error._tag === "SqlError" && isConnectionFailure(error)
      ? Effect.fail(databaseUnavailable)
      : error._tag === "SqlError" && isTransactionConflict(error)
      // Inside a transaction, the conflict goes on up to the withTransaction that retries it.
      ? Effect.flatMap(
        Effect.serviceOption(SqlClient.TransactionConnection),
        (inside) => Option.isSome(inside) ? Effect.die(error) : Effect.fail(databaseBusy)
      )
      : Effect.die(error)) as Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R>
