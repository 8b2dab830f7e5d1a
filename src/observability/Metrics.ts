/**
 * The service's metrics, as Effect `Metric`s in the process-wide registry. `MetricsExporter`
 * turns the registry into Prometheus text. docs/operations.md ("Metrics") lists them with the
 * role that exports each. Labels stay bounded: route templates, regions, outcomes; never ids.
 */
import { Context, Effect, Exit, Fiber, Layer, Metric } from "effect"

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

/** `status_page_checks_total`'s labels: ingest (its results and probes' misses) and the scheduler (runs it never published) count into the same series. */
export const checkLabels = labelSets("region", "outcome")

/** The attempt number as a label: 1 to 4, then `5+`. */
export const attemptLabel = (attempt: number) => attempt >= 5 ? "5+" : String(attempt)

/**
 * Gauges read at scrape time (a query, XLEN): each role that knows one registers how to
 * refresh it for as long as it runs. A scrape runs them all at once, each within a time-out,
 * so a slow database makes the gauge stale, never the scrape slow.
 */
const refreshers = new Set<Effect.Effect<void>>()

export const scrapeGauge = (refresh: Effect.Effect<void, unknown>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const guarded = refresh.pipe(
        Effect.timeout("2 seconds"),
        Effect.catchCause((cause) => Effect.logDebug("a gauge could not be read at scrape time", cause))
      )
      refreshers.add(guarded)
      return guarded
    }),
    (guarded) => Effect.sync(() => refreshers.delete(guarded))
  )

/** The refresh under way: scrapes arriving meanwhile wait for it, so scrapes never pile up queries. */
let running: Fiber.Fiber<void> | undefined

const startRefresh = () => {
  const fiber = Effect.runFork(
    Effect.forEach(refreshers, (refresh) => refresh, { concurrency: "unbounded", discard: true })
  )
  running = fiber
  // Called at once when the fiber has already ended (no refreshers).
  fiber.addObserver(() => {
    if (running === fiber) running = undefined
  })
  return fiber
}

export const refreshScrapeGauges: Effect.Effect<void> = Effect.suspend(() => Fiber.join(running ?? startRefresh()))
export const snapshotBehind = gauge(
  "status_page_public_snapshot_behind",
  "1 while a change announced since the public snapshot was built awaits its rebuild, else 0"
)

/** The label set of a series without labels, shared so its update skips the registry lookup. */
export const noLabels: MetricLabels = Context.empty()

const attemptLabels = labelSets("outcome", "attempt")

/** Counts one delivery attempt (webhook or mail) by outcome and attempt number. */
export const countAttempt = (metric: typeof webhookAttempts, outcome: string, attempt: number) =>
  metric.updateUnsafe(1, attemptLabels(outcome, attemptLabel(attempt)))

// Effect's own runtime metrics, under the names and with the labels Effect 3 exported them
// (it counted every fiber by default; Effect 4 counts none unless `Metric.FiberRuntimeMetrics`
// says how). The counts follow the runtime's fibers, so they vary with Effect's internals.
const fiberStarted = Metric.counter("effect_fiber_started", { incremental: true })
const fiberActive = Metric.counter("effect_fiber_active")
const fiberSuccesses = Metric.counter("effect_fiber_successes", { incremental: true })
const fiberFailures = Metric.counter("effect_fiber_failures", { incremental: true })
const fiberLifetimes = Metric.histogram("effect_fiber_lifetimes", {
  boundaries: Metric.exponentialBoundaries({ start: 0.5, factor: 2, count: 35 }),
  attributes: { time_unit: "milliseconds" }
})

/**
 * When the fibers running in each context began (Date.now), oldest first: a fiber ends in the
 * context it began in, which siblings forked together share, so the first to end is given the
 * oldest start (the count and the sum of the lifetimes are exact either way).
 */
const fiberStarts = new WeakMap<Context.Context<never>, Array<number>>()

const fiberMetrics: Metric.FiberRuntimeMetricsService = {
  recordFiberStart(context) {
    fiberStarted.updateUnsafe(1, context)
    fiberActive.updateUnsafe(1, context)
    const starts = fiberStarts.get(context)
    if (starts === undefined) fiberStarts.set(context, [Date.now()])
    else starts.push(Date.now())
  },
  recordFiberEnd(context, exit) {
    const starts = fiberStarts.get(context)
    const startedAt = starts?.shift()
    if (starts !== undefined && starts.length === 0) fiberStarts.delete(context)
    if (startedAt !== undefined) fiberLifetimes.updateUnsafe(Date.now() - startedAt, context)
    fiberActive.updateUnsafe(-1, context)
    if (Exit.isSuccess(exit)) fiberSuccesses.updateUnsafe(1, context)
    else fiberFailures.updateUnsafe(1, context)
  }
}

/** Counts the fibers of everything built with it (`effect_fiber_*`), as Effect 3 did. */
export const fiberRuntimeMetrics: Layer.Layer<never> = Layer.succeed(Metric.FiberRuntimeMetrics, fiberMetrics)
