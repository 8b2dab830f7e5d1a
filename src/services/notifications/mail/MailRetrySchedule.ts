/**
 * When a failed subscriber mail is tried again (docs/notifications.md, "Mail"). A notification
 * follows the webhook schedule: 5 s, 10 s and 20 s, then it has failed for good. A confirmation
 * is retried as long as its link works (48 hours at most, checked at each claim), the wait
 * doubling from 5 s up to 5 minutes, so an SMTP outage delays it and loses nothing.
 */
import { Duration, Option } from "effect"

import { firstRetryDelay, nextAttemptAt } from "../webhooks/RetrySchedule.js"

/** The longest wait between two attempts at a confirmation mail. */
export const confirmationRetryCap = Duration.minutes(5)

/** The wait after attempt number `attempt` (1-based) at a confirmation mail failed. */
export const confirmationRetryDelay = (attempt: number): Duration.Duration =>
  Duration.min(Duration.times(firstRetryDelay, 2 ** Math.min(Math.max(attempt, 1) - 1, 16)), confirmationRetryCap)

/** The time of the next attempt after attempt `attempt` failed at `failedAt`, or none: failed for good. */
export const nextMailAttemptAt = (
  kind: "notification" | "confirmation",
  attempt: number,
  failedAt: Date
): Option.Option<Date> =>
  kind === "notification"
    ? nextAttemptAt(attempt, failedAt)
    : Option.some(new Date(failedAt.getTime() + Duration.toMillis(confirmationRetryDelay(attempt))))
