import { Context, Exit, Layer, Metric } from "effect"

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
