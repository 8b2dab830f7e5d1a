import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, TestClock } from "effect"

import {
  maxAttempts,
  nextAttemptAt,
  retryDelayAfter
} from "../../../src/services/notifications/webhooks/RetrySchedule.js"

describe("delivery retry schedule", () => {
  it("retries 3 times, after 5 s, 10 s and 20 s, then gives up", () => {
    expect(maxAttempts).toBe(4)
    expect([1, 2, 3, 4].map((attempt) => Option.map(retryDelayAfter(attempt), Duration.toSeconds))).toEqual([
      Option.some(5),
      Option.some(10),
      Option.some(20),
      Option.none()
    ])
    expect(Option.isNone(retryDelayAfter(0))).toBe(true)
    const failedAt = new Date("2026-03-01T10:00:00.000Z")
    expect(Option.getOrThrow(nextAttemptAt(2, failedAt)).toISOString()).toBe("2026-03-01T10:00:10.000Z")
  })

  it.effect("a failing delivery driven by the schedule is attempted at 0, 5, 15 and 35 s", () =>
    Effect.gen(function*() {
      const attemptsAt: Array<number> = []
      // What a dispatcher does: attempt, and on failure sleep for the schedule's delay.
      const deliverWithRetries = Effect.gen(function*() {
        for (let attempt = 1;; attempt++) {
          attemptsAt.push(yield* TestClock.currentTimeMillis)
          const delay = retryDelayAfter(attempt)
          if (Option.isNone(delay)) return attempt
          yield* Effect.sleep(delay.value)
        }
      })
      const fiber = yield* Effect.fork(deliverWithRetries)
      yield* TestClock.adjust("34 seconds")
      expect(attemptsAt).toEqual([0, 5_000, 15_000])
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toBe(4)
      expect(attemptsAt).toEqual([0, 5_000, 15_000, 35_000])
    }))
})
