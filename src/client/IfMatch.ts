/**
 * Sending `If-Match` from the typed client: a write to one admin resource runs only while the
 * resource is still as the caller read it, else it fails with 412 `PreconditionFailed`
 * (docs/api.md, "Concurrent edits: ETag and If-Match").
 *
 * ```ts
 * const [component, response] = yield* client.components.get({ params: { id }, responseMode: "decoded-and-response" })
 * yield* client.components.update({ params: { id }, payload }).pipe(withIfMatch(response.headers.etag))
 * ```
 */
import { Context, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"

import { Preconditions } from "../api/Preconditions.js"

/** The ETag the writes of the typed client send as `If-Match`; none unless set. */
export const IfMatch = Context.Reference<string | undefined>("status-page/client/IfMatch", {
  defaultValue: () => undefined
})

/** Runs `self` with `etag` sent as `If-Match` on the writes it makes (none when `etag` is undefined). */
export const withIfMatch = (etag: string | undefined) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  etag === undefined ? self : Effect.provideService(self, IfMatch, etag)

/** The client side of the `Preconditions` middleware: sends the ETag in force on writes. */
export const PreconditionsClient = HttpApiMiddleware.layerClient(
  Preconditions,
  ({ next, request }) =>
    Effect.flatMap(IfMatch, (etag) =>
      next(
        etag === undefined || request.method === "GET" || request.headers["if-match"] !== undefined
          ? request
          : HttpClientRequest.setHeader(request, "if-match", etag)
      ))
)
