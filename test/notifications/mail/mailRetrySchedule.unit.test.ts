import { describe, expect, it } from "@effect/vitest"
import { Duration, Option } from "effect"

import {
  confirmationRetryDelay,
  nextMailAttemptAt
} from "../../../src/services/notifications/dispatcher/RetrySchedule.js"

const failedAt = new Date("2030-01-31T09:00:00.000Z")
const after = (option: Option.Option<Date>) => Option.map(option, (at) => (at.getTime() - failedAt.getTime()) / 1000)

describe("mail retry schedule", () => {
  it("gives a notification three retries after 5, 10 and 20 s, like a webhook delivery", () => {
    expect([1, 2, 3, 4].map((attempt) => after(nextMailAttemptAt("notification", attempt, failedAt)))).toEqual([
      Option.some(5),
      Option.some(10),
      Option.some(20),
      Option.none()
    ])
  })

  it("retries a confirmation without end, doubling from 5 s up to 5 minutes (its link's expiry ends it)", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map((attempt) => after(nextMailAttemptAt("confirmation", attempt, failedAt))))
      .toEqual([5, 10, 20, 40, 80, 160, 300, 300].map(Option.some))
    expect(Duration.toSeconds(confirmationRetryDelay(10_000))).toBe(300)
  })
})
