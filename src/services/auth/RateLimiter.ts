import { Clock, Context, Duration, Effect, Layer } from "effect"

import { TooManyRequests } from "../../domain/Errors.js"
import { RateLimitRepo } from "../../persistence/RateLimitRepo.js"

export interface RateLimit {
  /** Requests allowed per window. */
  readonly max: number
  readonly window: Duration.Duration
}

export class RateLimiter extends Context.Service<RateLimiter>()("RateLimiter", {
  make: Effect.gen(function*() {
    const repo = yield* RateLimitRepo
    return {
      /** Counts a request against `key`; fails with TooManyRequests past the limit. */
      check: (key: string, limit: RateLimit) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const { hits, windowStartedAt } = yield* repo.hit(key, limit.window, new Date(now))
          if (hits <= limit.max) return
          const retryAfterSeconds = Math.max(
            1,
            Math.ceil((windowStartedAt.getTime() + Duration.toMillis(limit.window) - now) / 1000)
          )
          return yield* new TooManyRequests({
            message: `Too many requests; try again in ${retryAfterSeconds} seconds`,
            retryAfterSeconds
          })
        }),

      /** Deletes up to `batch` counters whose window has ended; returns how many. */
      removeExpired: Effect.fn("RateLimiter.removeExpired")(function*(batch: number) {
        const now = yield* Clock.currentTimeMillis
        return yield* repo.removeEndedBefore(new Date(now), batch)
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(RateLimitRepo.layer))
}
