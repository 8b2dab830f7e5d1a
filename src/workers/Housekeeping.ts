/**
 * Housekeeping: at start and every 10 minutes it deletes what clients can create without limit
 * over time: rate-limit counters whose window has ended, sign-in counters a day after theirs
 * ended (the back-off is remembered that long), and unverified subscribers whose confirmation
 * link has expired. It deletes in batches, so no statement holds many rows, and reads the Effect
 * Clock, so tests drive it with TestClock. Several instances may run it: each batch skips the
 * rows another one is deleting, and deleting what is gone changes nothing.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"

import { SubscribersRepo } from "../persistence/SubscribersRepo.js"
import { RateLimiter } from "../services/auth/RateLimiter.js"
import { SignInThrottle } from "../services/auth/SignInThrottle.js"

export const housekeepingInterval = Duration.minutes(10)
const batch = 500

/** Repeats a batched delete until a batch comes back short; the total deleted. */
const drain = <E, R>(deleteBatch: Effect.Effect<number, E, R>) =>
  Effect.iterate({ total: 0, last: batch }, {
    while: ({ last }) => last === batch,
    body: ({ total }) => Effect.map(deleteBatch, (last) => ({ total: total + last, last }))
  }).pipe(Effect.map(({ total }) => total))

export const Housekeeping = Layer.scopedDiscard(
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const throttle = yield* SignInThrottle
    const subscribers = yield* SubscribersRepo
    const pass = Effect.gen(function*() {
      const rateLimits = yield* drain(limiter.removeExpired(batch))
      const signInFailures = yield* drain(throttle.removeExpired(batch))
      const now = new Date(yield* Clock.currentTimeMillis)
      const unverifiedSubscribers = yield* drain(subscribers.removeUnverifiedExpired(now, batch))
      yield* Effect.logDebug("Housekeeping pass", { rateLimits, signInFailures, unverifiedSubscribers })
    }).pipe(
      // A failed pass (database away) is retried on the next one.
      Effect.catchAllCause((cause) => Effect.logWarning("Housekeeping pass failed", cause)),
      Effect.withSpan("Housekeeping.pass"),
      // Shutdown interrupts between passes, never inside a statement (see MaintenanceClock).
      Effect.uninterruptible
    )
    yield* pass.pipe(
      Effect.repeat(Schedule.spaced(housekeepingInterval)),
      Effect.annotateLogs("fiber", "housekeeping"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide([RateLimiter.Default, SignInThrottle.Default, SubscribersRepo.Default]))
