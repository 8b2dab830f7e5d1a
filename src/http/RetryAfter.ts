import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

import { TooManyRequests } from "../domain/Errors.js"

/** Adds `Retry-After` to a 429 answer: a typed error cannot carry headers itself. */
export const withRetryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (error) =>
    error instanceof TooManyRequests
      ? HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(error.retryAfterSeconds)))
      )
      : Effect.void)
