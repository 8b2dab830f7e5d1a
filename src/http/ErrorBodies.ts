/**
 * Gives every error response the contract's JSON body `{ _tag, message }`. Typed API errors
 * already carry one; this covers what the platform answers with an empty body: unknown
 * routes, unreadable request bodies (malformed JSON) and defects. It runs as a pre-response
 * handler because the platform turns failures into responses before outer middleware runs.
 */
import { Effect } from "effect"
import { HttpEffect, HttpMiddleware, HttpServerResponse } from "effect/http"

const unreadableBody = { _tag: "BadRequest", message: "The request could not be read: the body must be valid JSON" }

const describe = (status: number, method: string, url: string) => {
  switch (status) {
    case 400:
      return unreadableBody
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

/** Longest error message or issue message kept: a validation message quotes the refused value. */
const maxMessageLength = 1_000
/** Bodies under this size are left alone (the common case costs a length check). */
const largeErrorBody = 16_384

const shorten = (text: unknown) =>
  typeof text === "string" && text.length > maxMessageLength ? `${text.slice(0, maxMessageLength)}… (shortened)` : text

/**
 * A refused 1 MB value would come back quoted in several messages (a 10 MB answer to a 1 MB
 * request): large error bodies get their messages shortened.
 */
const shortenLargeErrorBody = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.body._tag !== "Uint8Array" || response.body.contentLength < largeErrorBody) return response
  try {
    const body = JSON.parse(response.body.text ?? new TextDecoder().decode(response.body.body)) as {
      message?: unknown
      issues?: Array<{ message?: unknown }>
    }
    const issues = Array.isArray(body.issues)
      ? body.issues.slice(0, 100).map((issue) => ({ ...issue, message: shorten(issue.message) }))
      : undefined
    return HttpServerResponse.jsonUnsafe({ ...body, message: shorten(body.message), ...(issues ? { issues } : {}) }, {
      status: response.status,
      headers: response.headers
    })
  } catch {
    return response
  }
}

export const errorBodies = HttpMiddleware.make((app) =>
  Effect.andThen(
    HttpEffect.appendPreResponseHandler((request, response) =>
      Effect.succeed(
        response.status < 400 || response.status === 499
          ? response
          : response.body._tag === "Empty"
          ? HttpServerResponse.jsonUnsafe(describe(response.status, request.method, request.url), {
            status: response.status,
            headers: response.headers
          })
          : shortenLargeErrorBody(response)
      )
    ),
    // A multipart body, which the platform would parse (and answer 500 when broken), never
    // reaches an endpoint that reads its body: JsonBodies refuses it first (415).
    app
  )
)
