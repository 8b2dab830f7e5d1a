/**
 * A probe agent's metrics, counted always (one update per check, on label arrays made once)
 * and served only when PROBE_METRICS_PORT is set (probes/main.ts loads the server then).
 */
import { Metric, MetricBoundaries } from "effect"

import { labelSets, noLabels } from "../src/observability/Metrics.js"

export const probeChecks = Metric.counter("status_page_probe_checks_total", {
  description: "Checks this probe ran, by check type and outcome (ok, failed)",
  incremental: true
})
export const probeCheckDuration = Metric.histogram(
  "status_page_probe_check_duration_seconds",
  MetricBoundaries.exponential({ start: 0.005, factor: 2, count: 14 }),
  "Wall time of a check, by check type"
)
export const probeJobsInFlight = Metric.gauge("status_page_probe_jobs_in_flight", {
  description: "Checks running now (read at scrape time)"
})
export const probeJobsRefused = Metric.counter("status_page_probe_jobs_refused_total", {
  description: "Jobs taken and not run, by reason: late (reported as missed) or other_region",
  incremental: true
})

const checkLabels = labelSets("type", "outcome")
const typeLabels = labelSets("type")
const reasonLabels = labelSets("reason")

export const countCheck = (type: string, ok: boolean, durationMs: number) => {
  probeChecks.unsafeUpdate(1, checkLabels(type, ok ? "ok" : "failed"))
  probeCheckDuration.unsafeUpdate(durationMs / 1000, typeLabels(type))
}

export const countRefused = (reason: "late" | "other_region") => probeJobsRefused.unsafeUpdate(1, reasonLabels(reason))

export const setInFlight = (count: number) => probeJobsInFlight.unsafeUpdate(count, noLabels)
