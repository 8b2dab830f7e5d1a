/**
 * Field schemas shared by several resources. They keep out what PostgreSQL would
 * refuse (NUL characters, unpaired surrogates, out-of-range integers), so bad input is a 400,
 * never a 500.
 */
import { Effect, Number as Num, Option, Schema, SchemaGetter, SchemaIssue, SchemaTransformation } from "effect"

/** An unpaired UTF-16 surrogate: JSON carries it as an escape that PostgreSQL's jsonb refuses. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A filter for Schema.makeFilter: true when PostgreSQL stores `s` as given (no NUL, no unpaired surrogate), else why not. */
export const storable = (s: string) =>
  s.includes("\u0000")
    ? "must not contain NUL characters"
    : loneSurrogate.test(s)
    ? "must be valid Unicode text (it contains an unpaired surrogate)"
    : true

/**
 * A check that a string matches `regExp`, failing with `message` when given. The OpenAPI
 * document shows the pattern as before: Schema.isPattern writes it there only for a regular
 * expression with the `u` flag, which the plain ASCII patterns of this service match alike.
 */
export const pattern = (regExp: RegExp, message?: string) =>
  Schema.isPattern(
    regExp.unicode ? regExp : new RegExp(regExp.source, `${regExp.flags}u`),
    message === undefined ? undefined : { message }
  )

/** A string of at most `max` characters that PostgreSQL stores as given (no NUL, no unpaired surrogate). */
export const Text = (max: number) =>
  Schema.String.check(
    Schema.isMaxLength(max, { message: `must be at most ${max} characters` }),
    Schema.makeFilter(storable)
  )

const notEmpty = Schema.isMinLength(1, { message: "must not be empty" })

/**
 * A non-blank string of at most `max` characters, trimmed. The bounds are checked on the text as
 * sent, so the OpenAPI document shows them (`minLength`, `maxLength`): a name padded with spaces
 * beyond `max` is refused even though it would fit once trimmed. Blank text is refused after
 * trimming, with the same message. Encoding (the typed client) refuses an untrimmed name.
 */
export const Name = (max: number) =>
  Text(max).check(notEmpty).pipe(
    Schema.decodeTo(Schema.Trimmed.check(notEmpty), SchemaTransformation.trim())
  )

/**
 * An absolute http(s) URL. The document shows `format: uri` and the scheme as a `pattern`; the
 * URL parser decides (it also takes what it would normalise, such as `https:host`), so they
 * describe what to send rather than all that is accepted.
 */
export const HttpUrl = Text(2048).check(
  Schema.makeFilter((value) => {
    try {
      const url = new URL(value)
      return url.protocol === "http:" || url.protocol === "https:" ? true : "must be an http(s) URL"
    } catch {
      return "must be an absolute http(s) URL"
    }
  }, { toJsonSchema: () => [{ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" }, true] })
).annotate({ identifier: "HttpUrl", description: "An absolute http:// or https:// URL" })

/** A 32-bit signed integer, the range of a PostgreSQL `integer` column. */
export const Int32 = Schema.Int.check(Schema.isBetween({ minimum: -2147483648, maximum: 2147483647 }))

/** An opaque id as it arrives in a path or body: a string PostgreSQL can compare (no NUL), at most 100 characters. */
export const IdString = Text(100)

/** A branded opaque resource id. */
export const Id = <const B extends string>(brand: Parameters<typeof Schema.brand<B>>[0]) =>
  IdString.pipe(Schema.brand<B>(brand))

/**
 * A number written as a string (a query parameter, a bigint column): what `Number()` reads,
 * except that blank text and text that is not a number are refused rather than read as 0 or NaN.
 */
export const NumberFromString = Schema.String.annotate({ expected: "a string that will be decoded as a number" }).pipe(
  Schema.decodeTo(Schema.Number, {
    decode: SchemaGetter.transformEffect((text: string, options) =>
      Option.match(Num.parse(text), {
        onNone: () =>
          Effect.fail(
            new SchemaIssue.InvalidValue({ expected: "a string that will be decoded as a number" }, text, options)
          ),
        onSome: Effect.succeed
      })
    ),
    encode: SchemaGetter.String()
  })
)

/** `"true"` or `"false"` (a query parameter) as a boolean; any other text is refused. */
export const BooleanFromString = Schema.Literals(["true", "false"]).pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform<boolean, "true" | "false">({
      decode: (text) => text === "true",
      encode: (value) => (value ? "true" : "false")
    })
  )
)
