/**
 * The automatic incidents' clock: every 5 seconds a pass over the monitors that may need a step
 * (IncidentAutomation): it resolves incidents whose monitor stayed up for `resolveAfterSeconds`,
 * and takes any step a crash between ingest's commit and its own pass left undone. It reads the
 * Effect Clock, so tests drive it with TestClock. Several instances may run it: each step is
 * decided again under the monitor's lock.
 */
import { Effect, Layer, Schedule } from "effect"

import { IncidentAutomation } from "../services/monitoring/IncidentAutomation.js"

export const IncidentAutomationClock = Layer.effectDiscard(
  Effect.gen(function*() {
    const automation = yield* IncidentAutomation
    const tick = automation.advanceAll.pipe(
      // A failed pass (database away) is retried on the next tick.
      Effect.catchCause((cause) => Effect.logWarning("Automatic incidents: pass failed", cause)),
      Effect.withLogSpan("incident-automation"),
      // Shutdown interrupts between passes, never inside a transaction (see MaintenanceClock).
      Effect.uninterruptible
    )
    yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced("5 seconds")))
  })
).pipe(Layer.provide(IncidentAutomation.layer))
