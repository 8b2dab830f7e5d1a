/**
 * Gauges refreshed when metrics are scraped, shared by the service's roles and the probe.
 */
import { Effect, Fiber } from "effect"

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
