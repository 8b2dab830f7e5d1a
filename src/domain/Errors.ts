/**
 * Errors a caller can see. Each carries its HTTP status, and every one encodes as
 * `{ _tag, message }`, the error body of every API answer (docs/api.md, "Errors").
 */
import { Effect, Option, Schema } from "effect"

import { summary } from "./IssueSentence.js"
import { TaggedError } from "./Named.js"

export class NotFound extends TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  { httpApiStatus: 404 }
) {
  static of(what: string, id: string) {
    return new NotFound({ message: `${what} ${JSON.stringify(id)} was not found` })
  }
}

export class Conflict extends TaggedError<Conflict>()(
  "Conflict",
  { message: Schema.String },
  { httpApiStatus: 409 }
) {}

/** One offending field of a request, as in HttpApiDecodeError's `issues` (array elements by index). */
export const Issue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Finite])),
  message: Schema.String
})
export type Issue = typeof Issue.Type

/** 400 for rules a schema cannot check alone (across fields, or against stored values). */
export class BadRequest extends TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String, issues: Schema.optionalKey(Schema.Array(Issue)) },
  { httpApiStatus: 400 }
) {
  /** A rule's refusal of fields, in the words of a schema's (IssueSentence). */
  static fromIssues(issues: ReadonlyArray<Issue>) {
    return new BadRequest({ message: summary(issues), issues })
  }
}

export class ServiceUnavailable extends TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  { httpApiStatus: 503 }
) {}

/** 413: a request body over the 1 MB the service reads (src/http/BodyLimit.ts). */
export class PayloadTooLarge extends TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  { httpApiStatus: 413 }
) {}

/** 415: a body that is not JSON sent to an endpoint that takes JSON (a form post, plain text). */
export class UnsupportedMediaType extends TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  { httpApiStatus: 415 }
) {}

/**
 * 408: a request whose headers or whole body did not arrive within the server's time-outs. Node
 * answers it before any handler runs (src/http/PublicHttpServer.ts); declared so the document lists it.
 */
export class RequestTimeout extends TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { message: Schema.String },
  { httpApiStatus: 408 }
) {}

/** 431: a request line or headers over Node's 16 KB limit, answered like 408 before any handler. */
export class RequestHeaderFieldsTooLarge extends TaggedError<RequestHeaderFieldsTooLarge>()(
  "RequestHeaderFieldsTooLarge",
  { message: Schema.String },
  { httpApiStatus: 431 }
) {}

/** Fails with NotFound when the looked-up row is absent. */
export const orNotFound =
  (what: string, id: string) =>
  <A, E, R>(self: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | NotFound, R> =>
    Effect.flatMap(self, Option.match({ onNone: () => Effect.fail(NotFound.of(what, id)), onSome: Effect.succeed }))

export class Unauthorized extends TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  { httpApiStatus: 401 }
) {}

export class Forbidden extends TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  { httpApiStatus: 403 }
) {}

/** 429; the response also carries a `Retry-After` header with `retryAfterSeconds`. */
export class TooManyRequests extends TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Int },
  { httpApiStatus: 429 }
) {}
