/** Decoding query results into domain schemas, with the database errors of DatabaseErrors.ts. */
import { Effect, Option, Schema } from "effect"
import { orUnavailable } from "./DatabaseErrors.js"

export const rowsOf = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  const all = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) => orUnavailable(Effect.flatMap(query, decode))
  return {
    all,
    first: <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      Effect.map(all(query), (rows): Option.Option<A> => Option.fromNullable(rows[0])),
    /** For statements that always return a row (`insert ... returning`). */
    one: <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      Effect.flatMap(all(query), (rows) => rows.length > 0 ? Effect.succeed(rows[0]!) : Effect.dieMessage("Expected a row"))
  }
}

/** The keys of `fields` whose value is defined: what a partial update changes. */
export const definedFields = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>
