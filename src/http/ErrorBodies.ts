/**
 * Gives every error response the contract's JSON body `{ _tag, message }`. Typed API errors
 * already carry one; this covers what the platform answers with an empty body: unknown
 * routes, unreadable request bodies (malformed JSON) and defects. It runs as a pre-response
 * handler because the platform turns failures into responses before outer middleware runs.
 */
import { HttpApp, HttpMiddleware, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

const describe = (status: number, method: string, url: string) => {
  switch (status) {
    case 400:
      return { _tag: "BadRequest", message: "The request could not be read: the body must be valid JSON" }
    case 404:
      return { _tag: "NotFound", message: `No endpoint ${method} ${url}` }
    case 503:
      return { _tag: "ServiceUnavailable", message: "The service is unavailable; try again shortly" }
    default:
      return status >= 500
        ? { _tag: "InternalServerError", message: "An unexpected error occurred; it has been logged" }
        : { _tag: "Error", message: `The request failed with status ${status}` }
  }
}

export const errorBodies = HttpMiddleware.make((app) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((request, response) =>
      Effect.succeed(
        response.status >= 400 && response.status !== 499 && response.body._tag === "Empty"
          ? HttpServerResponse.unsafeJson(describe(response.status, request.method, request.url), {
            status: response.status,
            headers: response.headers
          })
          : response
      )
    ),
    app
  )
)
