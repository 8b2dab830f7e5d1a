/**
 * Prometheus text from Effect's metric registry: @effect/opentelemetry's metric producer feeds
 * the OpenTelemetry Prometheus exporter (as a reader only: it opens no server of its own), and
 * its serializer writes the text. Gauges read at scrape time are refreshed first.
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { Effect, Layer } from "effect"

import { refreshScrapeGauges } from "./Metrics.js"

/** What Prometheus expects of the text format. */
export const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

export class MetricsExporter extends Effect.Service<MetricsExporter>()("MetricsExporter", {
  scoped: (serviceName: string) =>
    Effect.gen(function*() {
      // The scope label would repeat on every line for one scope; `target_info` names the service.
      const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
      const serializer = new PrometheusSerializer("", false, undefined, false, true)
      yield* Layer.build(
        OtelMetrics.layer(() => exporter).pipe(Layer.provide(OtelResource.layer({ serviceName })))
      )
      return {
        /** The registry as Prometheus text, after the scrape-time gauges are read. */
        scrape: Effect.fn("MetricsExporter.scrape")(function*() {
          yield* refreshScrapeGauges
          const { resourceMetrics } = yield* Effect.promise(() => exporter.collect())
          return serializer.serialize(resourceMetrics)
        })
      } as const
    })
}) {}
