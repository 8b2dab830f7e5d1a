import { describe, expect, it } from "@effect/vitest"
import { Duration, Option } from "effect"

import {
  maxAttempts,
  nextAttemptAt,
  retryDelayAfter
} from "../../../src/services/notifications/dispatcher/RetrySchedule.js"

// The schedule as the dispatcher runs it (due times in the database, on the TestClock): deliveries.test.ts.
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
})
