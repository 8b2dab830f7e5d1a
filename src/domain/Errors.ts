/**
 * Errors a caller can see. Each carries its HTTP status, and every one encodes as
 * `{ _tag, message }`, the error shape of CONTRACT.md.
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

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** Fails with NotFound when the looked-up row is absent. */
export const orNotFound = (what: string, id: string) =>
<A, E, R>(self: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(self, Option.match({ onNone: () => Effect.fail(NotFound.of(what, id)), onSome: Effect.succeed }))

/** Too many requests; the response carries `Retry-After` with `retryAfterSeconds`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Int },
  HttpApiSchema.annotations({ status: 429 })
) {}
