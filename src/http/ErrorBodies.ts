/**
 * Gives every error response the contract's JSON body `{ _tag, message }`. Typed API errors
 * already carry one; this covers what the platform answers with an empty body: unknown
 * routes, unreadable request bodies (malformed JSON) and defects. It runs as a pre-response
 * handler because the platform turns failures into responses before outer middleware runs.
 * It also caps the size of any error body, whatever wrote it.
 */
import { Effect } from "effect"
import { HttpEffect, HttpMiddleware, HttpServerResponse } from "effect/http"

const unreadableBody = { _tag: "BadRequest", message: "The request could not be read: the body must be valid JSON" }

/** Longest part of a request's URL repeated in a message. */
const maxUrlLength = 200

const describe = (status: number, method: string, url: string) => {
  switch (status) {
    case 400:
      return unreadableBody
    case 404:
      return { _tag: "NotFound", message: `No endpoint ${method} ${shorten(url, maxUrlLength)}` }
    case 503:
      return { _tag: "ServiceUnavailable", message: "The service is unavailable; try again shortly" }
    default:
      return status >= 500
        ? { _tag: "InternalServerError", message: "An unexpected error occurred; it has been logged" }
        : { _tag: "Error", message: `The request failed with status ${status}` }
  }
}

/** Longest error message or issue message kept. */
const maxMessageLength = 1_000
/** Most issues kept. */
const maxIssues = 100
/** Bodies under this size are left alone (the common case costs a length check). */
const largeErrorBody = 16_384

function shorten(text: string, max: number): string
function shorten(text: unknown, max: number): unknown
function shorten(text: unknown, max: number) {
  return typeof text === "string" && text.length > max ? `${text.slice(0, max)}… (shortened)` : text
}

/**
 * A hard cap on error bodies. Schema refusals never quote the refused value (api/IssueMessages),
 * but a rule's message may list what it refused (unknown ids): an error body over 16 kB keeps
 * 100 issues and 1,000 characters per message, so no request is answered at length.
 */
const shortenLargeErrorBody = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.body._tag !== "Uint8Array" || response.body.contentLength < largeErrorBody) return response
  try {
    const body = JSON.parse(response.body.text ?? new TextDecoder().decode(response.body.body)) as {
      message?: unknown
      issues?: Array<{ message?: unknown }>
    }
    const issues = Array.isArray(body.issues)
      ? body.issues.slice(0, maxIssues).map((issue) => ({
        ...issue,
        message: shorten(issue.message, maxMessageLength)
      }))
      : undefined
    const message = shorten(body.message, maxMessageLength)
    return HttpServerResponse.jsonUnsafe({ ...body, message, ...(issues ? { issues } : {}) }, {
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
