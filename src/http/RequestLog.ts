/**
 * The request log: one line per response, as effect's `HttpMiddleware.logger` writes
 * it (message, `http.method`, `http.url`, `http.status`, a log span), except that the URL is
 * logged with its secrets redacted. Links in mail carry them: the token of a confirmation link,
 * the address and token of an unsubscribe link. API keys and e-mail addresses go wherever they
 * appear.
 */
import { Context, Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { HttpMiddleware, HttpServerError, HttpServerRequest } from "effect/http"

export const redactedValue = "REDACTED"

/** Query parameters whose value is never logged. */
const secretParameter = /token|key|secret|password|mail|signature/i
const apiKeyLike = /svc_[A-Za-z0-9]/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Long random-looking text (tokens are 43 characters of base64url); ids are UUIDs, file names have dots. */
const opaque = /^[A-Za-z0-9_-]{32,}$/

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "))
  } catch {
    return text
  }
}

/** An e-mail address, an API key or a token-like string, percent-encoded or not. */
const looksSecret = (raw: string) => {
  const text = decoded(raw)
  return text.includes("@") || apiKeyLike.test(text) || (opaque.test(text) && !uuid.test(text))
}

/** Path segments after these are tokens: a confirmation link's, a push monitor's (which may be short: imported ones). */
const tokenBefore = new Set(["verify", "push"])

const redactSegments = (path: string) =>
  path.split("/").map((segment, i, segments) =>
    segment.length > 0 && ((i > 0 && tokenBefore.has(decoded(segments[i - 1]!).toLowerCase())) || looksSecret(segment))
      ? redactedValue
      : segment
  ).join("/")

const redactQuery = (query: string) =>
  query.split("&").map((pair) => {
    const equals = pair.indexOf("=")
    if (equals === -1) return looksSecret(pair) ? redactedValue : pair
    const name = pair.slice(0, equals)
    return secretParameter.test(decoded(name)) || looksSecret(pair.slice(equals + 1))
      ? `${name}=${redactedValue}`
      : pair
  }).join("&")

/**
 * The request target as the log shows it: a path segment after `verify` or `push`, the values of query
 * parameters named like a token, key, secret, password or e-mail, anything holding an `@` or an
 * API key, long token-like segments and values, and the user information of an absolute URL
 * become `REDACTED`. Everything else is kept as sent.
 */
export const redactUrl = (url: string): string => {
  const queryAt = url.search(/[?#]/)
  const target = queryAt === -1 ? url : url.slice(0, queryAt)
  const rest = queryAt === -1 ? "" : url.slice(queryAt + 1)
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(target)?.[0] ?? ""
  const keptOrigin = origin.replace(/\/\/[^@]*@/, `//${redactedValue}@`)
  return keptOrigin + redactSegments(target.slice(origin.length)) +
    (queryAt === -1 ? "" : `${url[queryAt]}${redactQuery(rest)}`)
}

/**
 * The state of the request `HttpMiddleware.withLoggerDisabled` marks. Effect keeps its service
 * internal (effect/http/internal/requestState.ts); its key reaches the same state.
 */
const RequestLogState = Context.Service<{ readonly loggerDisabled: boolean }>(
  "effect/http/HttpEffect/CurrentRequestState"
)

/** Numbers the log spans; effect 4 applies a server's middleware to each request, so it lives here. */
let counter = 0

/** `HttpMiddleware.logger` with `redactUrl`; `HttpMiddleware.withLoggerDisabled` still silences it. */
export const requestLogger: <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> = HttpMiddleware
  .make((app) =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const state = Context.getOrUndefined(fiber.context, RequestLogState)
      return Effect.withLogSpan(
        Effect.flatMap(Effect.exit(app), (exit) => {
          if (state?.loggerDisabled) return exit
          const annotations = (status: number) => ({
            "http.method": request.method,
            "http.url": redactUrl(request.url),
            "http.status": status
          })
          if (exit._tag === "Failure") {
            const [response, cause] = HttpServerError.causeResponseStripped(exit.cause)
            return Effect.andThen(
              Effect.annotateLogs(
                Effect.log(cause._tag === "Some" ? cause.value : "Sent HTTP Response"),
                annotations(response.status)
              ),
              exit
            )
          }
          return Effect.andThen(
            Effect.annotateLogs(Effect.log("Sent HTTP response"), annotations(exit.value.status)),
            exit
          )
        }),
        `http.span.${++counter}`
      )
    })
  )
