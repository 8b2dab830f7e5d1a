/**
 * Label sets for Effect metrics, made once and reused, for the service's and the probe's metrics.
 */
import { Context, Metric } from "effect"

/**
 * The labels of one series, as a metric update reads them: a context holding them as
 * `Metric.CurrentMetricAttributes`, for `metric.updateUnsafe(value, labels)` (and
 * `metric.valueUnsafe(labels)` to read the series).
 */
export type MetricLabels = Context.Context<never>

/**
 * Label sets made once and reused: a hot path that passes the same set updates without
 * building a context or an attribute record (Effect finds the series in the registry by them).
 */
export const labelSets = <K extends string>(...keys: ReadonlyArray<K>) => {
  const cache = new Map<string, MetricLabels>()
  return (...values: ReadonlyArray<string>): MetricLabels => {
    const id = values.join("\u0000")
    let labels = cache.get(id)
    if (labels === undefined) {
      const attributes: Record<string, string> = {}
      keys.forEach((key, i) => {
        attributes[key] = values[i]!
      })
      labels = Context.make(Metric.CurrentMetricAttributes, attributes)
      cache.set(id, labels)
    }
    return labels
  }
}

/** The label set of a series without labels, shared so its update skips the registry lookup. */
export const noLabels: MetricLabels = Context.empty()
