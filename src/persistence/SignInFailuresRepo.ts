import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

export class FailureCount extends Schema.Class<FailureCount>("FailureCount")({
  key: Schema.String,
  failures: Schema.Number,
  windowStartedAt: Schema.DateFromSelf
}) {}

/** Fixed-window counters of failed sign-ins, shared by every API instance. */
export class SignInFailuresRepo extends Effect.Service<SignInFailuresRepo>()("SignInFailuresRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counts = rowsOf(FailureCount)
    return {
      /** The counts of `keys` whose window started after `windowOpenSince`. */
      current: (keys: ReadonlyArray<string>, windowOpenSince: Date) =>
        counts.all(sql`
          select key, failures, window_started_at from signin_failures
          where ${sql.in("key", keys)} and window_started_at > ${windowOpenSince}`),
      /** Counts one failure, starting a new window when the old one has closed. */
      record: (key: string, now: Date, windowOpenSince: Date) =>
        orUnavailable(sql`
          insert into signin_failures (key, failures, window_started_at) values (${key}, 1, ${now})
          on conflict (key) do update set
            failures = case when signin_failures.window_started_at <= ${windowOpenSince} then 1
                            else signin_failures.failures + 1 end,
            window_started_at = case when signin_failures.window_started_at <= ${windowOpenSince} then ${now}
                                     else signin_failures.window_started_at end`),
      clear: (key: string) => orUnavailable(sql`delete from signin_failures where key = ${key}`)
    } as const
  })
}) {}
