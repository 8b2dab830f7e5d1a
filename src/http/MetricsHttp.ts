/**
 * The HTTP side of the metrics: every request counted by route template and status with its
 * latency, and `GET /metrics` served on the main port (the api role) or, with METRICS_PORT, on
 * a server of its own. METRICS_TOKEN, when set, is asked for as a bearer token. With neither
 * variable set, /metrics is not served (docs/operations.md, "Metrics").
 */
import { Context, Effect, Layer, Option } from "effect"
import { HttpMiddleware, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"

import { httpRequestDuration, httpRequests } from "../observability/Metrics.js"
import { MetricsConfig } from "../runtime/Config.js"
import { labelSets } from "../runtime/MetricLabels.js"
import { MetricsExporter, prometheusContentType } from "../runtime/MetricsExporter.js"
import { bearerMatches, metricsServer, unauthorizedBody } from "../runtime/MetricsServer.js"
import { publicRoute, routeOf } from "./MetricsRoutes.js"

const requestLabels = labelSets("method", "route", "status")
const durationLabels = labelSets("method", "route")
/** Methods outside this list share one label, so a client cannot make up series. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** Counts one answered request: no Effect and no allocation once its label set exists. */
export const recordRequest = (method: string, route: string, status: number, seconds: number) => {
  const m = knownMethods.has(method) ? method : "other"
  httpRequests.updateUnsafe(1, requestLabels(m, route, String(status)))
  httpRequestDuration.updateUnsafe(seconds, durationLabels(m, route))
}

/** The fast path's answers: one fixed route, since they are all public reads. */
export const recordFastPath = (method: string, status: number, startedAt: number) =>
  recordRequest(method, publicRoute, status, (performance.now() - startedAt) / 1000)

/** Middleware counting every request the Effect app answers (failures by the status they become). */
export const httpMetrics: <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> = HttpMiddleware
  .make((app) =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const startedAt = performance.now()
      return Effect.onExit(app, (exit) =>
        Effect.sync(() => {
          const status = exit._tag === "Success"
            ? exit.value.status
            : HttpServerError.causeResponseStripped(exit.cause)[0].status
          recordRequest(
            request.method,
            routeOf(request.method, request.url, status),
            status,
            (performance.now() - startedAt) / 1000
          )
        }))
    })
  )

/** The service's exporter; one per process, whichever server serves it. */
export const ServiceMetricsExporter = MetricsExporter.layer("status-page")

/** `GET /metrics` on the main port: when METRICS_TOKEN is set and METRICS_PORT is not. */
export const MetricsRoute = Layer.unwrap(
  Effect.map(MetricsConfig, ({ port, token }) =>
    Option.isSome(port) || Option.isNone(token)
      ? Layer.empty
      : HttpRouter.use((router) =>
        Effect.gen(function*() {
          const exporter = yield* MetricsExporter
          yield* router.add(
            "GET",
            "/metrics",
            Effect.gen(function*() {
              const request = yield* HttpServerRequest.HttpServerRequest
              if (!bearerMatches(request.headers["authorization"], token.value)) {
                return HttpServerResponse.text(unauthorizedBody, {
                  status: 401,
                  contentType: "application/json",
                  headers: { "www-authenticate": "Bearer" }
                })
              }
              return HttpServerResponse.text(yield* exporter.scrape(), { contentType: prometheusContentType })
            })
          )
        })
      ).pipe(Layer.provide(ServiceMetricsExporter)))
)

/**
 * A server of its own on METRICS_PORT (and HOST) answering only `GET /metrics`, for the
 * processes of every role: Prometheus scrapes workers there too.
 */
export const MetricsServer = Layer.unwrap(
  Effect.map(MetricsConfig, ({ host, port, token }) =>
    Option.isNone(port)
      ? Layer.empty
      : metricsServer({ port: port.value, host, token }).pipe(Layer.provide(ServiceMetricsExporter)))
)
