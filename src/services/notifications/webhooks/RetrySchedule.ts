/**
 * When a failed delivery is tried again: 3 retries after 5 s, 10 s and 20 s
 * (docs/notifications.md). Pure, so the dispatcher can store the next attempt time in the delivery row
 * and a restart loses no retry.
 */
import { Duration, Option } from "effect"

export const maxRetries = 3
export const firstRetryDelay = Duration.seconds(5)

/** Attempts per delivery: the first one plus the retries. */
export const maxAttempts = maxRetries + 1

/**
 * The wait before the next attempt after attempt number `attempt` (1-based) failed, or none
 * when that was the last attempt and the delivery has failed for good.
 */
export const retryDelayAfter = (attempt: number): Option.Option<Duration.Duration> =>
  attempt >= 1 && attempt <= maxRetries
    ? Option.some(Duration.times(firstRetryDelay, 2 ** (attempt - 1)))
    : Option.none()

/** The time of the next attempt after attempt `attempt` failed at `failedAt`. */
export const nextAttemptAt = (attempt: number, failedAt: Date): Option.Option<Date> =>
  Option.map(retryDelayAfter(attempt), (delay) => new Date(failedAt.getTime() + Duration.toMillis(delay)))
