/** The request spans of the API server, as they go to the trace collector. */
import type { HttpApp } from "@effect/platform"
import { HttpMiddleware } from "@effect/platform"
import { Effect, Option } from "effect"

import { redactUrl } from "../http/RequestLog.js"
import { TracingEnabled } from "./Telemetry.js"

/**
 * The request span's URL attributes (and the Referer header's) with the secrets a URL may carry
 * redacted, as the request log does (RequestLog): confirmation and unsubscribe links carry a
 * token and an address.
 */
export const redactRequestSpan: <E, R>(app: HttpApp.Default<E, R>) => HttpApp.Default<E, R> = HttpMiddleware.make(
  (app) =>
    Effect.flatMap(TracingEnabled, (enabled) =>
      enabled
        ? Effect.flatMap(Effect.currentSpan.pipe(Effect.option), (span) => {
          if (Option.isSome(span)) {
            const { attributes } = span.value
            const full = attributes.get("url.full")
            const path = attributes.get("url.path")
            const query = attributes.get("url.query")
            if (typeof full === "string") span.value.attribute("url.full", redactUrl(full))
            if (typeof path === "string") span.value.attribute("url.path", redactUrl(path))
            if (typeof query === "string") span.value.attribute("url.query", redactUrl(`?${query}`).slice(1))
            // A form posted from a link's page names that page, token and all, in its Referer.
            const referer = attributes.get("http.request.header.referer")
            if (typeof referer === "string") span.value.attribute("http.request.header.referer", redactUrl(referer))
          }
          return app
        })
        : app)
)
