/**
 * The process's metrics as Prometheus text (PrometheusText.ts), for whichever server answers
 * `GET /metrics`. The OpenTelemetry exporter behind it is loaded when the layer is built, that
 * is only when metrics are served (METRICS_PORT or METRICS_TOKEN): a process that serves none
 * does not hold it in memory (docs/benchmarks.md, "Third round").
 */
import { Context, Effect, Layer } from "effect"

/** What Prometheus expects of the text format. */
export const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

export class MetricsExporter extends Context.Service<MetricsExporter, {
  /** The registry as Prometheus text, after the scrape-time gauges are read. */
  readonly scrape: () => Effect.Effect<string>
}>()("MetricsExporter") {
  static readonly layer = (serviceName: string) =>
    Layer.effect(
      this,
      Effect.flatMap(Effect.promise(() => import("./PrometheusText.js")), (m) => m.makePrometheusText(serviceName))
    )
}
