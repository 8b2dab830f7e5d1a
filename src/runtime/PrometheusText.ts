/**
 * Prometheus text from Effect's metric registry: @effect/opentelemetry's metric producer feeds
 * the OpenTelemetry Prometheus exporter (as a reader only: it opens no server of its own), and
 * its serializer writes the text. Gauges read at scrape time are refreshed first. Loaded by
 * MetricsExporter only when metrics are served.
 */
import * as OtelMetrics from "@effect/opentelemetry/OtelMetrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { resourceFromAttributes } from "@opentelemetry/resources"
import {
  ATTR_SERVICE_NAME,
  ATTR_TELEMETRY_SDK_LANGUAGE,
  ATTR_TELEMETRY_SDK_NAME,
  TELEMETRY_SDK_LANGUAGE_VALUE_NODEJS
} from "@opentelemetry/semantic-conventions"
import { Effect, Layer } from "effect"

import { refreshScrapeGauges } from "./ScrapeGauges.js"

/**
 * The resource `target_info` describes: the service's name and the SDK's name and language
 * (what the scrape has always shown; `OtelResource.layer` would add the SDK's version).
 */
const resourceLayer = (serviceName: string) =>
  Layer.succeed(
    OtelResource.Resource,
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: serviceName,
      [ATTR_TELEMETRY_SDK_NAME]: "@effect/opentelemetry",
      [ATTR_TELEMETRY_SDK_LANGUAGE]: TELEMETRY_SDK_LANGUAGE_VALUE_NODEJS
    })
  )

export const makePrometheusText = (serviceName: string) =>
  Effect.gen(function*() {
    // The scope label would repeat on every line for one scope; `target_info` names the service.
    const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
    const serializer = new PrometheusSerializer("", false, undefined, false, true)
    yield* Layer.build(
      OtelMetrics.layer(() => exporter).pipe(Layer.provide(resourceLayer(serviceName)))
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
