/**
 * Sending `Idempotency-Key` from the typed client: the admin POSTs take it (docs/api.md, "Retries:
 * Idempotency-Key"), so a caller that retries one with the same key gets the first answer again
 * instead of doing the work twice.
 *
 * ```ts
 * const incident = yield* client.incidents.create({ payload }).pipe(withIdempotencyKey(deploymentId))
 * ```
 */
import { Context, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"

import { Idempotency, idempotencyKeyHeader } from "../api/Idempotency.js"

/** The key the admin POSTs of the typed client send; none unless set. */
export const IdempotencyKey = Context.Reference<string | undefined>("status-page/client/IdempotencyKey", {
  defaultValue: () => undefined
})

/** Runs `self` with `key` sent as `Idempotency-Key` on every admin POST it makes. */
export const withIdempotencyKey = (key: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, IdempotencyKey, key)

/**
 * The client side of the `Idempotency` middleware: on the endpoints that take the header (the
 * admin POSTs), it sends the key in force, unless the request has one already.
 */
export const IdempotencyClient = HttpApiMiddleware.layerClient(
  Idempotency,
  ({ next, request }) =>
    Effect.flatMap(IdempotencyKey, (key) =>
      next(
        key === undefined || request.headers[idempotencyKeyHeader] !== undefined
          ? request
          : HttpClientRequest.setHeader(request, idempotencyKeyHeader, key)
      ))
)
