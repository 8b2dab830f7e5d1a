/**
 * When a failed delivery is tried again (docs/notifications.md), webhook or mail: the wait
 * starts at 5 s and doubles with each failed attempt. A webhook delivery, and a notification
 * mail, get 3 retries after 5 s, 10 s and 20 s, then have failed for good. A confirmation mail is
 * retried as long as its link works (48 hours at most, checked at each claim), the wait
 * doubling up to 5 minutes, so an SMTP outage delays it and loses nothing; so is an invitation's
 * mail (72 hours at most). Pure, so the dispatcher can store the next attempt time in the
 * delivery row and a restart loses no retry.
 */
import { Duration, Option } from "effect"

export const maxRetries = 3
export const firstRetryDelay = Duration.seconds(5)

/** Attempts per delivery: the first one plus the retries. */
export const maxAttempts = maxRetries + 1

/** The longest wait between two attempts at a confirmation mail. */
export const confirmationRetryCap = Duration.minutes(5)

/** The doubling wait after attempt number `attempt` (1-based) failed, before any limit. */
const doublingDelay = (attempt: number) => Duration.times(firstRetryDelay, 2 ** Math.min(Math.max(attempt, 1) - 1, 16))

const after = (failedAt: Date, delay: Duration.Duration) => new Date(failedAt.getTime() + Duration.toMillis(delay))

/**
 * The wait before the next attempt after attempt number `attempt` (1-based) failed, or none
 * when that was the last attempt and the delivery has failed for good.
 */
export const retryDelayAfter = (attempt: number): Option.Option<Duration.Duration> =>
  attempt >= 1 && attempt <= maxRetries ? Option.some(doublingDelay(attempt)) : Option.none()

/** The time of the next attempt after attempt `attempt` failed at `failedAt`. */
export const nextAttemptAt = (attempt: number, failedAt: Date): Option.Option<Date> =>
  Option.map(retryDelayAfter(attempt), (delay) => after(failedAt, delay))

/** The wait after attempt number `attempt` (1-based) at a confirmation mail failed. */
export const confirmationRetryDelay = (attempt: number): Duration.Duration =>
  Duration.min(doublingDelay(attempt), confirmationRetryCap)

/** The time of the next attempt at a mail after attempt `attempt` failed at `failedAt`, or none: failed for good. */
export const nextMailAttemptAt = (
  kind: "notification" | "confirmation" | "invitation",
  attempt: number,
  failedAt: Date
): Option.Option<Date> =>
  kind === "notification"
    ? nextAttemptAt(attempt, failedAt)
    : Option.some(after(failedAt, confirmationRetryDelay(attempt)))
