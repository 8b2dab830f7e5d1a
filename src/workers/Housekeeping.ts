/**
 * Housekeeping: at start and every 10 minutes it deletes what clients can create without limit
 * over time: rate-limit counters whose window has ended, sign-in counters a day after theirs
 * ended (the back-off is remembered that long), and unverified subscribers whose confirmation
 * link has expired; mail kept without SMTP_URL once its confirmation link no longer works, and
 * all of it after 48 hours; probes silent for 7 days (`forgetProbeAfter`); and response-time rollups
 * past their retention (hourly rows after 8 days, daily ones after 90); Idempotency-Keys past their
 * 24 hours (`idempotencyKeyLifetime`); and audit log entries older than AUDIT_RETENTION_DAYS (365
 * by default; nothing else deletes them). It deletes in batches,
 * so no statement holds many rows, and reads the Effect Clock, so tests drive it with TestClock.
 * Several instances may run it: each batch skips the rows another one is deleting, and deleting
 * what is gone changes nothing.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"

import { forgetProbeAfter } from "../domain/Probe.js"
import { keepDailyMillis, keepHourlyMillis } from "../domain/ResponseTimes.js"
import { IdempotencyKeysRepo } from "../persistence/IdempotencyKeysRepo.js"
import { MailOutboxLogRepo } from "../persistence/MailOutboxLogRepo.js"
import { ProbesRepo } from "../persistence/ProbesRepo.js"
import { ResponseTimesRepo } from "../persistence/ResponseTimesRepo.js"
import { SubscribersRepo } from "../persistence/SubscribersRepo.js"
import { AppConfig } from "../runtime/Config.js"
import { AuditTrail } from "../services/audit/AuditTrail.js"
import { RateLimiter } from "../services/auth/RateLimiter.js"
import { SignInThrottle } from "../services/auth/SignInThrottle.js"
import { verificationHours } from "../services/notifications/mail/SubscriberMail.js"

export const housekeepingInterval = Duration.minutes(10)
const batch = 500
/** Mail kept without SMTP_URL is for a developer to read now: as long as a confirmation link works. */
const keepOutboxLog = Duration.hours(verificationHours)

/** Repeats a batched delete until a batch comes back short; the total deleted. */
const drain = <E, R>(deleteBatch: Effect.Effect<number, E, R>) =>
  Effect.gen(function*() {
    let total = 0
    let last = batch
    while (last === batch) {
      last = yield* deleteBatch
      total += last
    }
    return total
  })

export const Housekeeping = Layer.effectDiscard(
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const throttle = yield* SignInThrottle
    const subscribers = yield* SubscribersRepo
    const probes = yield* ProbesRepo
    const responseTimes = yield* ResponseTimesRepo
    const outboxLog = yield* MailOutboxLogRepo
    const idempotencyKeys = yield* IdempotencyKeysRepo
    const audit = yield* AuditTrail
    const { auditRetentionDays } = yield* AppConfig
    const pass = Effect.gen(function*() {
      const rateLimits = yield* drain(limiter.removeExpired(batch))
      const signInFailures = yield* drain(throttle.removeExpired(batch))
      const now = new Date(yield* Clock.currentTimeMillis)
      const unverifiedSubscribers = yield* drain(subscribers.removeUnverifiedExpired(now, batch))
      const keptMail = yield* drain(
        outboxLog.removeStale(now, new Date(now.getTime() - Duration.toMillis(keepOutboxLog)), batch)
      )
      const silentProbes = yield* drain(
        probes.removeSilent(new Date(now.getTime() - Duration.toMillis(forgetProbeAfter)), batch)
      )
      const responseTimeRollups = (yield* drain(
        responseTimes.deleteBefore("hour", new Date(now.getTime() - keepHourlyMillis), batch)
      )) + (yield* drain(responseTimes.deleteBefore("day", new Date(now.getTime() - keepDailyMillis), batch)))
      // A key's row holds its expiry (24 hours after its first request).
      const expiredIdempotencyKeys = yield* drain(idempotencyKeys.removeExpiredBefore(now, batch))
      const auditEntries = yield* drain(
        audit.removeOlderThan(new Date(now.getTime() - Duration.toMillis(Duration.days(auditRetentionDays))), batch)
      )
      yield* Effect.logDebug("Housekeeping pass", {
        rateLimits,
        signInFailures,
        unverifiedSubscribers,
        keptMail,
        silentProbes,
        responseTimeRollups,
        expiredIdempotencyKeys,
        auditEntries
      })
    }).pipe(
      // A failed pass (database away) is retried on the next one.
      Effect.catchCause((cause) => Effect.logWarning("Housekeeping pass failed", cause)),
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
).pipe(
  Layer.provide([
    RateLimiter.layer,
    SignInThrottle.layer,
    SubscribersRepo.layer,
    ProbesRepo.layer,
    ResponseTimesRepo.layer,
    MailOutboxLogRepo.layer,
    IdempotencyKeysRepo.layer,
    AuditTrail.layer
  ])
)
