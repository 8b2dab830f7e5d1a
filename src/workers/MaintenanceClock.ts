/**
 * The maintenance clock: every second it starts and completes the windows whose time has come,
 * including those whose times passed while no instance was running. It reads the Effect Clock,
 * so tests drive it with TestClock. Several instances may run it: a window being moved by one
 * is skipped by the others (FOR UPDATE SKIP LOCKED) and its status is re-checked under the lock.
 */
import { DateTime, Effect, Layer, Schedule } from "effect"

import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"

export const MaintenanceClock = Layer.scopedDiscard(
  Effect.gen(function*() {
    const windows = yield* MaintenanceWindows
    const tick = DateTime.now.pipe(
      Effect.flatMap(windows.runDue),
      // A failed pass (database away) is retried on the next tick.
      Effect.catchAllCause((cause) => Effect.logWarning("Maintenance clock pass failed", cause)),
      Effect.withLogSpan("maintenance-clock"),
      // Shutdown interrupts the clock between passes, never inside a query or transaction
      // (cancelling a query on the embedded PGlite can stall the connections it shares).
      Effect.uninterruptible
    )
    yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced("1 second")))
  })
).pipe(Layer.provide(MaintenanceWindows.Default))
