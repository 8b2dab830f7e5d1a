/**
 * Errors a caller can see. Each carries its HTTP status, and every one encodes as
 * `{ _tag, message }`, the error body of every API answer (docs/api.md, "Errors").
 */
import { HttpApiSchema } from "@effect/platform"
import { Effect, Option, Schema } from "effect"

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(what: string, id: string) {
    return new NotFound({ message: `${what} ${JSON.stringify(id)} was not found` })
  }
}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {}

/** One offending field of a request, as in HttpApiDecodeError's `issues` (array elements by index). */
export const Issue = Schema.Struct({
  path: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  message: Schema.String
})
export type Issue = typeof Issue.Type

/** 400 for rules a schema cannot check alone (across fields, or against stored values). */
export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String, issues: Schema.optional(Schema.Array(Issue)) },
  HttpApiSchema.annotations({ status: 400 })
) {
  static fromIssues(issues: ReadonlyArray<Issue>) {
    return new BadRequest({ message: issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), issues })
  }
}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** 413: a request body over the 1 MB the service reads (src/http/BodyLimit.ts). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {}

/** 415: a body that is not JSON sent to an endpoint that takes JSON (a form post, plain text). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 415 })
) {}

/**
 * 408: a request whose headers or whole body did not arrive within the server's time-outs. Node
 * answers it before any handler runs (src/http/PublicHttpServer.ts); declared so the document lists it.
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 408 })
) {}

/** 431: a request line or headers over Node's 16 KB limit, answered like 408 before any handler. */
export class RequestHeaderFieldsTooLarge extends Schema.TaggedError<RequestHeaderFieldsTooLarge>()(
  "RequestHeaderFieldsTooLarge",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 431 })
) {}

/** Fails with NotFound when the looked-up row is absent. */
export const orNotFound =
  (what: string, id: string) =>
  <A, E, R>(self: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | NotFound, R> =>
    Effect.flatMap(self, Option.match({ onNone: () => Effect.fail(NotFound.of(what, id)), onSome: Effect.succeed }))

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

/** 429; the response also carries a `Retry-After` header with `retryAfterSeconds`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Int },
  HttpApiSchema.annotations({ status: 429 })
) {}
