import { Context, Duration, Effect, Layer, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/**
 * Fixed-window counters in the database, so every API instance counts the same requests.
 * One statement per hit: concurrent requests cannot both see a window as fresh.
 */
export class RateLimitRepo extends Context.Service<RateLimitRepo>()("RateLimitRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const windows = rowsOf(Schema.Struct({ hits: Schema.Int, windowStartedAt: Schema.Date }))

    return {
      /** Counts a request for `key` at `now`; returns the hits of the current window, this one included. */
      hit: (key: string, window: Duration.Duration, now: Date) => {
        const windowStart = new Date(now.getTime() - Duration.toMillis(window))
        const windowEnd = new Date(now.getTime() + Duration.toMillis(window))
        return windows.one(sql`
          insert into rate_limits (key, window_started_at, window_ends_at, hits) values (${key}, ${now}, ${windowEnd}, 1)
          on conflict (key) do update set
            window_started_at = case when rate_limits.window_started_at <= ${windowStart}
                                     then excluded.window_started_at else rate_limits.window_started_at end,
            window_ends_at = case when rate_limits.window_started_at <= ${windowStart}
                                  then excluded.window_ends_at else rate_limits.window_ends_at end,
            hits = case when rate_limits.window_started_at <= ${windowStart} then 1 else rate_limits.hits + 1 end
          returning hits, window_started_at`)
      },

      /** Deletes up to `limit` counters whose window ended before `now`; returns how many. */
      removeEndedBefore: (now: Date, limit: number) =>
        orUnavailable(sql`
          delete from rate_limits
          where key in (select key from rate_limits where window_ends_at < ${now} limit ${limit} for update skip locked)
          and window_ends_at < ${now}
          returning key`).pipe(Effect.map((rows) => rows.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
