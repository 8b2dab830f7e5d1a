/**
 * A probe agent's metrics, counted always (one update per check, on label sets made once)
 * and served only when PROBE_METRICS_PORT is set (probes/main.ts loads the server then).
 */
import { Metric } from "effect"

import { labelSets, noLabels } from "../src/runtime/MetricLabels.js"

export const probeChecks = Metric.counter("status_page_probe_checks_total", {
  description: "Checks this probe ran, by check type and outcome (ok, failed)",
  incremental: true
})
export const probeCheckDuration = Metric.histogram("status_page_probe_check_duration_seconds", {
  boundaries: Metric.exponentialBoundaries({ start: 0.005, factor: 2, count: 14 }),
  description: "Wall time of a check, by check type"
})
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
  probeChecks.updateUnsafe(1, checkLabels(type, ok ? "ok" : "failed"))
  probeCheckDuration.updateUnsafe(durationMs / 1000, typeLabels(type))
}

export const countRefused = (reason: "late" | "other_region") => probeJobsRefused.updateUnsafe(1, reasonLabels(reason))

export const setInFlight = (count: number) => probeJobsInFlight.updateUnsafe(count, noLabels)
