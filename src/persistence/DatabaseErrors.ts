/**
 * What a failed query means for the caller: the database being away is a 503 the client
 * can retry; anything else (a bug, a row that does not decode) dies loudly and is logged.
 */
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

type QueryError = SqlError | ParseResult.ParseError

const isQueryError = (error: unknown): error is QueryError => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return tag === "SqlError" || tag === "ParseError"
}

/** Turns the query errors of `effect` into a 503 when the database is away, a defect otherwise. */
export const orUnavailable = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R> =>
  Effect.catchIf(effect, isQueryError, (error) =>
    error._tag === "SqlError" && isConnectionFailure(error)
      ? Effect.fail(databaseUnavailable)
      : Effect.die(error)) as Effect.Effect<A, Exclude<E, QueryError> | ServiceUnavailable, R>

/**
 * A deadlock (SQLSTATE 40P01) or serialization failure (40001) rolled the whole transaction back:
 * PostgreSQL chose it as the victim of two writers locking the same rows in opposite orders (an
 * operator's change of a component and one of an incident naming it). Running it again is the
 * remedy; after three tries the defect goes up as before.
 */
const isTransactionConflict = (defect: unknown) =>
  (defect as { _tag?: unknown } | null)?._tag === "SqlError" &&
  ["40P01", "40001"].includes(sqlState(defect as SqlError) ?? "")

export const retryConflicts = <A, E, R>(transaction: Effect.Effect<A, E, R>, triesLeft = 3): Effect.Effect<A, E, R> =>
  Effect.catchSomeDefect(
    transaction,
    (defect) =>
      triesLeft > 0 && isTransactionConflict(defect)
        ? Option.some(retryConflicts(transaction, triesLeft - 1))
        : Option.none()
  )
