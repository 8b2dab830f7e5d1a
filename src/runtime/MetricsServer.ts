/**
 * A node:http server of its own answering only `GET /metrics`, for METRICS_PORT (any role) and
 * a probe's PROBE_METRICS_PORT. It imports no HTTP framework, so the probe bundle can carry it;
 * the probe loads it only when its port is set.
 */
import { timingSafeEqual } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"

import type { Redacted } from "effect"
import { Effect, Layer, Option, Redacted as R } from "effect"

import { isLoopbackHost } from "../domain/NetworkAddress.js"
import { MetricsExporter, prometheusContentType } from "./MetricsExporter.js"

export const unauthorizedBody = JSON.stringify({
  _tag: "Unauthorized",
  message: "The metrics need the bearer token of METRICS_TOKEN"
})

/** Whether the Authorization header carries `token` as a bearer token, compared in constant time. */
export const bearerMatches = (header: string | undefined, token: Redacted.Redacted) => {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7).trim() : "")
  const wanted = Buffer.from(R.value(token))
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

const answerMetrics = (
  request: IncomingMessage,
  response: ServerResponse,
  token: Option.Option<Redacted.Redacted>,
  scrape: () => Promise<string>
) => {
  const json = (status: number, body: string, headers: Record<string, string> = {}) =>
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(body)
  const pathname = (request.url ?? "").split("?")[0]
  if (pathname !== "/metrics") {
    return json(404, JSON.stringify({ _tag: "NotFound", message: `No endpoint ${request.method} ${pathname}` }))
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return json(405, JSON.stringify({ _tag: "MethodNotAllowed", message: "Only GET /metrics is served here" }))
  }
  if (Option.isSome(token) && !bearerMatches(request.headers.authorization, token.value)) {
    return json(401, unauthorizedBody, { "www-authenticate": "Bearer" })
  }
  scrape().then(
    (text) => response.writeHead(200, { "content-type": prometheusContentType }).end(text),
    () => json(500, JSON.stringify({ _tag: "InternalServerError", message: "The metrics could not be collected" }))
  )
}

export interface MetricsServerOptions {
  readonly port: number
  readonly host: string
  readonly token: Option.Option<Redacted.Redacted>
}

/** Serves the exporter's `/metrics` on `port` and `host` for as long as the layer lives. */
export const metricsServer = (options: MetricsServerOptions) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const exporter = yield* MetricsExporter
    const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
    const server = yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof createServer>, Error>((resume) => {
        const created = createServer((request, response) =>
          answerMetrics(request, response, options.token, () => runPromise(exporter.scrape()))
        )
        created.once("error", (error) => resume(Effect.fail(error)))
        created.listen({ port: options.port, host: options.host }, () => resume(Effect.succeed(created)))
      }),
      (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
    ).pipe(Effect.orDie)
    const address = server.address()
    const [port, host] = typeof address === "object" && address !== null
      ? [address.port, address.address]
      : [options.port, options.host]
    yield* Effect.logInfo(`Metrics on port ${port} at ${host}`)
    if (Option.isNone(options.token) && !isLoopbackHost(host)) {
      // Without a token, whoever reaches the address reads the metrics (they name regions and routes).
      yield* Effect.logWarning(
        `Metrics on port ${port} are served without METRICS_TOKEN beyond loopback (${host}): set METRICS_TOKEN, or METRICS_HOST=127.0.0.1`
      )
    }
  }))
