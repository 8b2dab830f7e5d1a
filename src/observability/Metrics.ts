/**
 * The service's metrics, as Effect `Metric`s in the process-wide registry. `MetricsExporter`
 * (runtime/) turns the registry into Prometheus text. docs/operations.md ("Metrics") lists them
 * with the role that exports each. Labels stay bounded: route templates, regions, outcomes; never ids.
 *
 * These are the instruments only: who knows a value publishes it. The gauges read at scrape time
 * live beside what they measure (persistence/DatabaseGauges, persistence/DispatcherGauges,
 * queue/StreamGauges, the public snapshot's SnapshotGauges), the HTTP metrics in http/MetricsHttp.
 */
import { Metric } from "effect"

import { labelSets } from "../runtime/MetricLabels.js"

const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })
const gauge = (name: string, description: string) => Metric.gauge(name, { description })

/** Seconds, from 1 ms to about 65 s. */
const latencyBuckets = Metric.exponentialBoundaries({ start: 0.001, factor: 2, count: 17 })
/** Seconds, from 10 ms to about 10 minutes: how late a run is published. */
const lagBuckets = Metric.exponentialBoundaries({ start: 0.01, factor: 2, count: 17 })

// api
export const httpRequests = counter("status_page_http_requests_total", "HTTP requests answered, by route and status")
export const httpRequestDuration = Metric.histogram("status_page_http_request_duration_seconds", {
  boundaries: latencyBuckets,
  description: "Time from a request's arrival to its response, by route"
})
export const snapshotAge = gauge(
  "status_page_public_snapshot_age_seconds",
  "Age of the public snapshot served, in seconds (read at scrape time)"
)
export const snapshotBehind = gauge(
  "status_page_public_snapshot_behind",
  "1 while a change announced since the public snapshot was built awaits its rebuild, else 0"
)

// api, with a static mirror (src/mirror)
export const mirrorLag = Metric.histogram("status_page_mirror_lag_seconds", {
  boundaries: lagBuckets,
  description: "Per publication after a change: from the change's announcement to the mirror's last object written"
})
export const mirrorFailures = counter(
  "status_page_mirror_failures_total",
  "Publications to the static mirror that failed (each is retried with back-off)"
)
export const mirrorObjectsWritten = counter(
  "status_page_mirror_objects_written_total",
  "Objects written to the static mirror (only those whose bytes changed)"
)
export const mirrorObjectsDeleted = counter(
  "status_page_mirror_objects_deleted_total",
  "Objects deleted from the static mirror (items no longer public)"
)

// scheduler
export const runsPublished = counter("status_page_scheduler_runs_published_total", "Check runs published as jobs")
export const schedulerLag = Metric.histogram("status_page_scheduler_lag_seconds", {
  boundaries: lagBuckets,
  description: "Per scheduler tick with runs due: how long after its slot the oldest run's jobs were published"
})

// ingest
export const checksIngested = counter(
  "status_page_checks_total",
  "Check runs stored, by region and outcome (ok, failed, missed; missed includes runs no scheduler published)"
)
export const resultsStored = counter("status_page_results_stored_total", "Check results stored (the ingest rate)")
export const reportsRefused = counter(
  "status_page_reports_refused_total",
  "Probe reports refused by result admission (runs not scheduled, before the monitor, too late) or as duplicates, by region and reason"
)
export const monitorTransitions = counter(
  "status_page_monitor_transitions_total",
  "Monitor state changes decided by quorum, by the state entered"
)

// scheduler and ingest: the job transport
export const streamLength = gauge("status_page_stream_length", "Entries in a jobs or results stream, by region")
export const streamPending = gauge(
  "status_page_stream_pending",
  "Entries delivered to a consumer and not yet acknowledged, by stream and region"
)

// dispatcher
export const outboxBacklog = gauge("status_page_outbox_backlog", "Outbox events not yet handed to their deliveries")
export const outboxOldest = gauge(
  "status_page_outbox_oldest_seconds",
  "Age of the oldest outbox event not yet handed over (0 when none)"
)
export const retryBacklog = gauge(
  "status_page_delivery_retry_backlog",
  "Deliveries waiting for a retry after a failed attempt, by channel (webhook, mail)"
)
export const webhookAttempts = counter(
  "status_page_webhook_attempts_total",
  "Webhook delivery attempts, by outcome (delivered, failed) and attempt number (5 and more: 5+)"
)
export const mailAttempts = counter(
  "status_page_mail_attempts_total",
  "Mail sending attempts, by outcome (sent, failed, refused: for good by the mail server) and attempt number (5 and more: 5+)"
)

// every role with a database
export const databaseConnections = gauge(
  "status_page_db_connections",
  "Connections of the service to PostgreSQL (all instances), by state, from pg_stat_activity"
)
export const databasePoolMax = gauge("status_page_db_pool_max", "Connections this process's pool may open")

/** `status_page_checks_total`'s labels: ingest (its results and probes' misses) and the scheduler (runs it never published) count into the same series. */
export const checkLabels = labelSets("region", "outcome")

/** The attempt number as a label: 1 to 4, then `5+`. */
export const attemptLabel = (attempt: number) => attempt >= 5 ? "5+" : String(attempt)

const attemptLabels = labelSets("outcome", "attempt")

/** Counts one delivery attempt (webhook or mail) by outcome and attempt number. */
export const countAttempt = (metric: typeof webhookAttempts, outcome: string, attempt: number) =>
  metric.updateUnsafe(1, attemptLabels(outcome, attemptLabel(attempt)))
