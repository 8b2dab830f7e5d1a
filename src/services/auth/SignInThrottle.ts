/**
 * Limits failed sign-ins (docs/authentication.md#throttling). Three counters, each in windows of
 * 15 minutes: per account and client address (5), so the right password from elsewhere still
 * signs in; per client address across accounts (20); and per account from everywhere (50), a
 * ceiling against distributed guessing. A full window answers 429 with Retry-After until it
 * closes, even for the right password. After a full window, the next one of the same account
 * (or account and client) lasts twice as long, up to a day, so persistent guessing slows down.
 *
 * An attempt is counted before its password is hashed, in one transaction over the three
 * counters: concurrent attempts cannot all pass a check made before any of them is recorded.
 * A successful sign-in takes its attempt back and clears its account-and-client counter; an
 * attempt refused before its hash (the queue in front of scrypt is full) is taken back too.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Option } from "effect"

import { TooManyRequests } from "../../domain/Errors.js"
import { clientBudget } from "../../domain/NetworkAddress.js"
import type { Counter, FailureRule } from "../../persistence/SignInFailuresRepo.js"
import { SignInFailuresRepo } from "../../persistence/SignInFailuresRepo.js"
import { normalizeEmail } from "../../persistence/UsersRepo.js"

const window = Duration.minutes(15)

export const signInLimits = {
  perAccountAndClient: { limit: 5, window, longestWindow: Duration.days(1) },
  perClient: { limit: 20, window, longestWindow: window },
  perAccount: { limit: 50, window, longestWindow: Duration.days(1) }
} satisfies Record<string, FailureRule>

/** The limits in force: `signInLimits`, unless a test provides others. */
export class SignInLimits extends Context.Reference<SignInLimits>()("SignInLimits", {
  defaultValue: (): typeof signInLimits => signInLimits
}) {}

/** A window that ended longer ago than this no longer doubles the next one; its row can go. */
export const backOffMemory = Duration.days(1)

export interface SignInAttempt {
  readonly email: string
  readonly clientAddress: string
}

/** The counters of an attempt, always in this order of kinds (see SignInFailuresRepo.reserve). */
const countersOf = (limits: typeof signInLimits, attempt: SignInAttempt) => {
  const account = normalizeEmail(attempt.email)
  const client = clientBudget(attempt.clientAddress)
  return {
    client: { key: `client:${client}`, rule: limits.perClient },
    // A client budget holds no space, so the pair cannot be read two ways.
    accountAndClient: { key: `account-client:${client} ${account}`, rule: limits.perAccountAndClient },
    account: { key: `account:${account}`, rule: limits.perAccount }
  } satisfies Record<string, Counter>
}

export class SignInThrottle extends Effect.Service<SignInThrottle>()("SignInThrottle", {
  effect: Effect.gen(function*() {
    const repo = yield* SignInFailuresRepo
    const limits = yield* SignInLimits

    /** The 429 for counters found full; Retry-After is when the last of them reopens. */
    const refusal = (counters: ReadonlyArray<Counter>, now: Date) =>
      Effect.gen(function*() {
        const rows = yield* repo.current(counters.map(({ key }) => key), now)
        const reopensAt = Math.max(
          now.getTime(),
          ...rows.filter(({ failures, key }) => failures >= counters.find((c) => c.key === key)!.rule.limit)
            .map(({ windowEndsAt }) => windowEndsAt.getTime())
        )
        return yield* new TooManyRequests({
          message: "Too many failed sign-ins; try again later",
          retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now.getTime()) / 1000))
        })
      })

    const reserve = Effect.fn("SignInThrottle.reserve")(function*(attempt: SignInAttempt) {
      const counters = Object.values(countersOf(limits, attempt))
      const now = new Date(yield* Clock.currentTimeMillis)
      const backOffSince = new Date(now.getTime() - Duration.toMillis(backOffMemory))
      if (yield* repo.reserve(counters, now, backOffSince)) return now
      return yield* refusal(counters, now)
    })

    /** After a check that yielded a user or failed with a typed error (queue full, database away). */
    const settle = (attempt: SignInAttempt, reservedAt: Date, signedIn: boolean) => {
      const { account, accountAndClient, client } = countersOf(limits, attempt)
      return Effect.all([
        signedIn ? repo.clear(accountAndClient.key) : repo.giveBack(accountAndClient.key, reservedAt),
        repo.giveBack(client.key, reservedAt),
        repo.giveBack(account.key, reservedAt)
      ], { discard: true }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("A sign-in attempt could not be given back", cause))
      )
    }

    return {
      /**
       * Runs `check` as one counted attempt: it yields the user for the right credentials and
       * none for wrong ones. Fails with TooManyRequests, without running `check`, when a counter
       * of the attempt is full.
       */
      attempt: <A, E, R>(attempt: SignInAttempt, check: Effect.Effect<Option.Option<A>, E, R>) =>
        Effect.flatMap(reserve(attempt), (reservedAt) =>
          Effect.onExit(
            check,
            // A wrong password stays counted, and so does a check cut short by the client hanging
            // up, so hanging up is no way around the limits.
            Exit.match({
              onSuccess: (user) => Option.isSome(user) ? settle(attempt, reservedAt, true) : Effect.void,
              onFailure: (cause) =>
                Option.isSome(Cause.failureOption(cause)) ? settle(attempt, reservedAt, false) : Effect.void
            })
          )),

      /** Deletes counters whose window ended longer ago than the back-off is remembered. */
      removeExpired: Effect.fn("SignInThrottle.removeExpired")(function*(batch: number) {
        const now = yield* Clock.currentTimeMillis
        return yield* repo.removeEndedBefore(new Date(now - Duration.toMillis(backOffMemory)), batch)
      })
    } as const
  }),
  dependencies: [SignInFailuresRepo.Default]
}) {}
