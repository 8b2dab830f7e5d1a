/** Decoding query results into domain schemas, with the database errors of DatabaseErrors.ts. */
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"

import { orUnavailable } from "./DatabaseErrors.js"

export const rowsOf = <S extends Schema.Top>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(schema))
  const all = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    orUnavailable(Effect.flatMap(query, (rows) => decode(rows)))
  return {
    all,
    first: <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      Effect.map(all(query), (rows): Option.Option<S["Type"]> => Option.fromNullishOr(rows[0])),
    /** For statements that always return a row (`insert ... returning`). */
    one: <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      Effect.flatMap(
        all(query),
        (rows) => rows.length > 0 ? Effect.succeed(rows[0]!) : Effect.die(new Error("Expected a row"))
      )
  }
}

/** The keys of `fields` whose value is defined: what a partial update changes. */
export const definedFields = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>

/**
 * The statement of a partial update by id: sets `fields` and `updated_at` and returns the row. With
 * nothing to set it only reads the row, so an empty update changes nothing, `updated_at` included.
 */
export const updateById = (sql: SqlClient.SqlClient, table: string, id: string, fields: Record<string, unknown>) =>
  Object.keys(fields).length === 0
    ? sql`select * from ${sql(table)} where id = ${id}`
    : sql`update ${sql(table)} set ${sql.update(fields)}, updated_at = now() where id = ${id} returning *`
