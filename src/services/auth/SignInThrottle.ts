/**
 * Limits failed sign-ins: 5 per account and 20 per client address in a 15-minute window.
 * Past a limit, sign-in answers 429 with Retry-After until the window closes, even with the
 * right password, so guessing gains nothing from being fast.
 */
import { Clock, Effect } from "effect"

import { TooManyRequests } from "../../domain/Errors.js"
import { clientBudget } from "../../domain/NetworkAddress.js"
import { SignInFailuresRepo } from "../../persistence/SignInFailuresRepo.js"
import { normalizeEmail } from "../../persistence/UsersRepo.js"

const windowMillis = 15 * 60 * 1000
export const accountLimit = 5
export const clientLimit = 20

export interface SignInAttempt {
  readonly email: string
  readonly clientAddress: string
}

const keysOf = (attempt: SignInAttempt) => ({
  account: `account:${normalizeEmail(attempt.email)}`,
  client: `client:${clientBudget(attempt.clientAddress)}`
})

export class SignInThrottle extends Effect.Service<SignInThrottle>()("SignInThrottle", {
  effect: Effect.gen(function*() {
    const repo = yield* SignInFailuresRepo
    const window = Effect.map(Clock.currentTimeMillis, (millis) => ({
      now: new Date(millis),
      openSince: new Date(millis - windowMillis)
    }))

    return {
      check: (attempt: SignInAttempt) =>
        Effect.gen(function*() {
          const keys = keysOf(attempt)
          const { now, openSince } = yield* window
          const counts = yield* repo.current([keys.account, keys.client], openSince)
          const blocked = counts.filter(({ key, failures }) =>
            failures >= (key === keys.account ? accountLimit : clientLimit)
          )
          if (blocked.length === 0) return
          const reopensAt = Math.max(...blocked.map(({ windowStartedAt }) => windowStartedAt.getTime() + windowMillis))
          return yield* new TooManyRequests({
            message: "Too many failed sign-ins; try again later",
            retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now.getTime()) / 1000))
          })
        }),

      recordFailure: (attempt: SignInAttempt) =>
        Effect.gen(function*() {
          const keys = keysOf(attempt)
          const { now, openSince } = yield* window
          yield* repo.record(keys.account, now, openSince)
          yield* repo.record(keys.client, now, openSince)
        }),

      recordSuccess: (attempt: SignInAttempt) => Effect.asVoid(repo.clear(keysOf(attempt).account))
    } as const
  }),
  dependencies: [SignInFailuresRepo.Default]
}) {}
