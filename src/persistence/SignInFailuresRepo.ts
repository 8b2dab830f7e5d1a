import { Context, Data, Duration, Effect, Layer, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class FailureCount extends Schema.Class<FailureCount>("FailureCount")({
  key: Schema.String,
  failures: Schema.Number,
  windowEndsAt: Schema.Date
}) {}

/** How many failures a counter allows per window, and how long its windows last. */
export interface FailureRule {
  readonly limit: number
  readonly window: Duration.Duration
  /** A window that follows a full one lasts twice as long, up to this. */
  readonly longestWindow: Duration.Duration
}

export interface Counter {
  readonly key: string
  readonly rule: FailureRule
}

class Refused extends Data.TaggedError("Refused") {}

/** Fixed-window counters of failed sign-ins, shared by every API instance. */
export class SignInFailuresRepo extends Context.Service<SignInFailuresRepo>()("SignInFailuresRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const counts = rowsOf(FailureCount)

    /**
     * Counts one attempt on `counter` in a single statement, so concurrent attempts cannot all
     * see room left: no row comes back when its window is full. A closed window gives way to a
     * new one, twice as long when the closed one was full and ended after `backOffSince`.
     */
    const reserveOne = ({ key, rule }: Counter, now: Date, backOffSince: Date) => {
      const firstEnd = new Date(now.getTime() + Duration.toMillis(rule.window))
      const longestEnd = new Date(now.getTime() + Duration.toMillis(rule.longestWindow))
      return sql`
        insert into signin_failures as f (key, failures, window_started_at, window_ends_at)
        values (${key}, 1, ${now}, ${firstEnd})
        on conflict (key) do update set
          failures = case when f.window_ends_at <= ${now} then 1 else f.failures + 1 end,
          window_started_at = case when f.window_ends_at <= ${now} then ${now} else f.window_started_at end,
          window_ends_at = case
            when f.window_ends_at > ${now} then f.window_ends_at
            when f.failures >= ${rule.limit}::int and f.window_ends_at > ${backOffSince}
              then least(${now}::timestamptz + 2 * (f.window_ends_at - f.window_started_at), ${longestEnd}::timestamptz)
            else ${firstEnd}::timestamptz end
        where f.window_ends_at <= ${now} or f.failures < ${rule.limit}::int
        returning failures`
    }

    return {
      /**
       * Counts an attempt on every counter, or on none when one of them is full (the transaction
       * rolls back). Callers list counters in one fixed order of kinds, so two reservations never
       * wait on each other's rows in a cycle.
       */
      reserve: (counters: ReadonlyArray<Counter>, now: Date, backOffSince: Date) =>
        Effect.forEach(counters, (counter) =>
          Effect.flatMap(
            reserveOne(counter, now, backOffSince),
            (rows) => rows.length > 0 ? Effect.void : Effect.fail(new Refused())
          ), { discard: true }).pipe(
            sql.withTransaction,
            Effect.as(true),
            Effect.catchTag("Refused", () => Effect.succeed(false)),
            orUnavailable
          ),

      /** The counters of `keys` whose window is still open at `now`. */
      current: (keys: ReadonlyArray<string>, now: Date) =>
        counts.all(sql`
          select key, failures, window_ends_at from signin_failures
          where ${sql.in("key", keys)} and window_ends_at > ${now}`),

      /** Takes back an attempt counted at `reservedAt`, unless its window has been replaced since. */
      giveBack: (key: string, reservedAt: Date) =>
        orUnavailable(sql`
          update signin_failures set failures = failures - 1
          where key = ${key} and failures > 0 and window_started_at <= ${reservedAt}`),

      clear: (key: string) => orUnavailable(sql`delete from signin_failures where key = ${key}`),

      /** Deletes up to `limit` counters whose window ended before `endedBefore`; returns how many. */
      removeEndedBefore: (endedBefore: Date, limit: number) =>
        orUnavailable(sql`
          delete from signin_failures
          where key in (
            select key from signin_failures where window_ends_at < ${endedBefore}
            limit ${limit} for update skip locked)
          and window_ends_at < ${endedBefore}
          returning key`).pipe(Effect.map((rows) => rows.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
