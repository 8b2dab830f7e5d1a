/**
 * Field schemas shared by several resources. They keep out what PostgreSQL would
 * refuse (NUL characters, unpaired surrogates, out-of-range integers), so bad input is a 400,
 * never a 500.
 */
import { Schema } from "effect"

/** An unpaired UTF-16 surrogate: JSON carries it as an escape that PostgreSQL's jsonb refuses. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A filter for Schema.filter: true when PostgreSQL stores `s` as given (no NUL, no unpaired surrogate), else why not. */
export const storable = (s: string) =>
  s.includes("\u0000")
    ? "must not contain NUL characters"
    : loneSurrogate.test(s)
    ? "must be valid Unicode text (it contains an unpaired surrogate)"
    : true

/** A string of at most `max` characters that PostgreSQL stores as given (no NUL, no unpaired surrogate). */
export const Text = (max: number) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    Schema.filter(storable)
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

/** An opaque id as it arrives in a path or body: a string PostgreSQL can compare (no NUL), at most 100 characters. */
export const IdString = Text(100)

/** A branded opaque resource id. */
export const Id = <const B extends string>(brand: B) => IdString.pipe(Schema.brand(brand))
