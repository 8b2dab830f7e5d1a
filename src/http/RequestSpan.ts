/** The request spans of the API server, as they go to the trace collector: redacted as RequestLog redacts the log. */
import { Effect, Option, type Tracer } from "effect"
import { HttpMiddleware, type HttpServerRequest, type HttpServerResponse } from "effect/http"

import { TracingEnabled } from "../runtime/Telemetry.js"
import { redactUrl } from "./RequestLog.js"

/** The span attributes that may carry a URL's secrets, and how each is redacted. */
const redactions = new Map<string, (value: string) => string>([
  ["url.full", redactUrl],
  ["url.path", redactUrl],
  ["url.query", (query) => redactUrl(`?${query}`).slice(1)],
  // A form posted from a link's page names that page, token and all, in its Referer.
  ["http.request.header.referer", redactUrl]
])

/**
 * Redacts `span`'s URL attributes: those it has, and those set later (the server's tracer
 * records the request's URL and headers when the response is sent).
 */
const redactSpan = (span: Tracer.Span) => {
  const attribute = span.attribute
  span.attribute = (key, value) => {
    const redact = redactions.get(key)
    attribute.call(span, key, redact !== undefined && typeof value === "string" ? redact(value) : value)
  }
  for (const [key, redact] of redactions) {
    const value = span.attributes.get(key)
    if (typeof value === "string") attribute.call(span, key, redact(value))
  }
}

/**
 * The request span's URL attributes (and the Referer header's) with the secrets a URL may carry
 * redacted, as the request log does (RequestLog): confirmation and unsubscribe links carry a
 * token and an address.
 */
export const redactRequestSpan: <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> = HttpMiddleware
  .make((app) =>
    Effect.flatMap(TracingEnabled, (enabled) =>
      enabled
        ? Effect.flatMap(Effect.option(Effect.currentSpan), (span) => {
          if (Option.isSome(span)) redactSpan(span.value)
          return app
        })
        : app)
  )
