/**
 * The maintenance clock: it starts and completes the windows whose time has come, including those
 * whose times passed while no instance was running, and sends the reminders. After each pass it
 * asks when something is next due (one statement) and sleeps until then, at most `longestSleep`;
 * a change of a window or of the organization (its reminder setting), in this process or, on a
 * PostgreSQL server, another's (StateChanges), wakes it at once, so a window created to start in
 * two seconds starts on time. An idle clock costs three statements every 10 s rather than two a
 * second. It reads the Effect Clock, so tests drive it with TestClock. Several instances may run
 * it: a window being moved by one is skipped by the others (FOR UPDATE SKIP LOCKED) and its
 * status is re-checked under the lock.
 */
import { Clock, DateTime, Duration, Effect, Layer, Option, PubSub, Queue } from "effect"

import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"
import { StateChanges } from "../services/StateChanges.js"

/**
 * The longest the clock sleeps: what it was not told of (a row changed by hand, a notice lost
 * while listening again) and a wall clock that jumps are seen this late at worst.
 */
const longestSleep = Duration.seconds(10)
/** A pass that failed (database away) or left something due (another instance held it) is tried again this soon. */
const retrySoon = Duration.seconds(1)

export const MaintenanceClock = Layer.effectDiscard(
  Effect.gen(function*() {
    const windows = yield* MaintenanceWindows
    const changes = yield* StateChanges
    // A sliding queue of one: changes made while a pass runs collapse into one more pass.
    const changed = yield* Queue.sliding<void>(1)
    const notices = yield* changes.subscribe
    yield* PubSub.take(notices).pipe(
      Effect.flatMap((touched) =>
        touched.maintenance === true || touched.organization === true ? Queue.offer(changed, undefined) : Effect.void
      ),
      Effect.forever,
      Effect.forkScoped
    )

    /** One pass at the current time; how long to sleep after it. */
    const pass = Effect.gen(function*() {
      const now = yield* DateTime.now
      yield* windows.runDue(now)
      const next = yield* windows.nextDue(now)
      if (Option.isNone(next)) return longestSleep
      if (next.value.epochMilliseconds <= now.epochMilliseconds) return retrySoon
      const wait = next.value.epochMilliseconds - (yield* Clock.currentTimeMillis)
      return Duration.min(Duration.millis(Math.max(0, wait)), longestSleep)
    }).pipe(
      // A failed pass (database away) is retried soon.
      Effect.catchCause((cause) => Effect.as(Effect.logWarning("Maintenance clock pass failed", cause), retrySoon)),
      Effect.withLogSpan("maintenance-clock"),
      // Shutdown interrupts the clock between passes, never inside a query or transaction
      // (cancelling a query on the embedded PGlite can stall the connections it shares).
      Effect.uninterruptible
    )
    yield* pass.pipe(
      Effect.flatMap((wait) => Effect.raceFirst(Queue.take(changed), Effect.sleep(wait))),
      Effect.forever,
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(Layer.merge(MaintenanceWindows.layer, StateChanges.layer)))
