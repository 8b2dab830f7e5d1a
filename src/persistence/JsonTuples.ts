import { Schema } from "effect"

/**
 * A JSON column of tuples that the repository's own statement builds (json_agg of
 * json_build_array over typed columns): typed there, not decoded element by element, on the
 * path every check result takes.
 */
export const builtTuples = <T extends ReadonlyArray<unknown>>() =>
  Schema.declare((u: unknown): u is ReadonlyArray<T> => Array.isArray(u))
