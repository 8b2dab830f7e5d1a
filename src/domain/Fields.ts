/**
 * Field schemas shared by several resources. They keep out what PostgreSQL would
 * refuse (NUL characters, out-of-range integers), so bad input is a 400, never a 500.
 */
import { Model } from "@effect/sql"
import { Schema } from "effect"

const noNul = (s: string) => !s.includes("\u0000") || "must not contain NUL characters"

/** A string of at most `max` characters without NUL. */
export const Text = (max: number) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    Schema.filter(noNul)
  )

/** A non-blank string (after trimming) of at most `max` characters. */
export const Name = (max: number) =>
  Schema.Trim.pipe(
    Schema.compose(Text(max)),
    Schema.minLength(1, { message: () => "must not be empty" })
  )

/** An absolute http(s) URL. */
export const HttpUrl = Text(2048).pipe(
  Schema.filter((value) => {
    try {
      const url = new URL(value)
      return url.protocol === "http:" || url.protocol === "https:" ? true : "must be an http(s) URL"
    } catch {
      return "must be an absolute http(s) URL"
    }
  }),
  Schema.annotations({ identifier: "HttpUrl", description: "An absolute http:// or https:// URL" })
)

/** A 32-bit signed integer, the range of a PostgreSQL `integer` column. */
export const Int32 = Schema.Int.pipe(Schema.between(-2147483648, 2147483647))

/**
 * An ISO 8601 UTC timestamp (`2026-05-01T12:00:00Z`, optional fraction), decoded to a
 * DateTime.Utc. Other offsets and date-only strings are refused.
 */
export const UtcTimestamp = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/, {
    message: () => "must be an ISO 8601 UTC timestamp such as 2026-05-01T12:00:00Z"
  }),
  Schema.compose(Schema.DateTimeUtc),
  Schema.annotations({ identifier: "UtcTimestamp" })
)

/** A nullable `timestamptz` column: a Date from the database, an ISO string (or null) in JSON. */
export const NullableTimestampColumn = Model.Field({
  select: Schema.NullOr(Model.DateTimeFromDate),
  insert: Schema.NullOr(Model.DateTimeFromDate),
  update: Schema.NullOr(Model.DateTimeFromDate),
  json: Schema.NullOr(Schema.DateTimeUtc)
})

/** A `timestamptz` column the application sets (from the Effect Clock, so tests control it). */
export const TimestampColumn = Model.Field({
  select: Model.DateTimeFromDate,
  insert: Model.DateTimeFromDate,
  update: Model.DateTimeFromDate,
  json: Schema.DateTimeUtc
})

/** An opaque id as it arrives in a path or body: a string PostgreSQL can compare (no NUL), at most 100 characters. */
export const IdString = Text(100)

/** A branded opaque resource id. */
export const Id = <const B extends string>(brand: B) => IdString.pipe(Schema.brand(brand))
