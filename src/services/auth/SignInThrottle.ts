/**
 * Limits failed sign-ins (docs/authentication.md#throttling). Three counters, each in windows of
 * 15 minutes: per account and client address (5), so the right password from elsewhere still
 * signs in; per client address across accounts (20); and per account from everywhere (50), a
 * ceiling against distributed guessing. A full window answers 429 with Retry-After until it
 * closes, even for the right password. After a full window, the next one of the same account
 * (or account and client) lasts twice as long, up to a day, so persistent guessing slows down.
 *
 * A browser with a device cookie of the account (DeviceCookies) is counted on a fourth counter
 * instead, its own (5), so guessing from elsewhere cannot lock the owner's browser out; once its
 * own window is full it is counted as an unknown device. Whether an attempt is refused depends
 * on the counters alone, never on the password, so a 429 says nothing about it.
 *
 * An attempt is counted before its password is hashed, in one transaction over its counters:
 * concurrent attempts cannot all pass a check made before any of them is recorded. A successful
 * sign-in takes its attempt back and clears its account-and-client (or device) counter; an
 * attempt refused before its hash (the queue in front of scrypt is full) is taken back too.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer, Option } from "effect"

import { TooManyRequests } from "../../domain/Errors.js"
import { clientBudget } from "../../domain/NetworkAddress.js"
import type { Counter, FailureRule } from "../../persistence/SignInFailuresRepo.js"
import { SignInFailuresRepo } from "../../persistence/SignInFailuresRepo.js"
import { normalizeEmail } from "../../persistence/UsersRepo.js"

const window = Duration.minutes(15)

export const signInLimits = {
  perAccountAndClient: { limit: 5, window, longestWindow: Duration.days(1) },
  perClient: { limit: 20, window, longestWindow: window },
  perAccount: { limit: 50, window, longestWindow: Duration.days(1) },
  perDevice: { limit: 5, window, longestWindow: Duration.days(1) }
} satisfies Record<string, FailureRule>

/** The limits in force: `signInLimits`, unless a test provides others. */
export const SignInLimits = Context.Reference<typeof signInLimits>("SignInLimits", {
  defaultValue: () => signInLimits
})

/** A window that ended longer ago than this no longer doubles the next one; its row can go. */
export const backOffMemory = Duration.days(1)

export interface SignInAttempt {
  readonly email: string
  readonly clientAddress: string
  /** The nonce of a valid device cookie of this account (DeviceCookies.trustedFor), if any. */
  readonly device: Option.Option<string>
}

/** When an attempt was counted, and on its device's counter if not on an unknown device's. */
interface Reservation {
  readonly at: Date
  readonly device: Option.Option<Counter>
}

/** The counters of an attempt from an unknown device, always in this order of kinds (see SignInFailuresRepo.reserve). */
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

const deviceCounter = (limits: typeof signInLimits, device: string): Counter => ({
  // A nonce is base64url, so it cannot be read as any other kind of key.
  key: `device:${device}`,
  rule: limits.perDevice
})

export class SignInThrottle extends Context.Service<SignInThrottle>()("SignInThrottle", {
  make: Effect.gen(function*() {
    const repo = yield* SignInFailuresRepo
    const limits = yield* SignInLimits

    /**
     * The 429 for an attempt whose every way in is full: a way is a list of counters, open again
     * when the last of its full ones reopens; Retry-After is when the first way opens.
     */
    const refusal = (ways: ReadonlyArray<ReadonlyArray<Counter>>, now: Date) =>
      Effect.gen(function*() {
        const rows = yield* repo.current(ways.flat().map(({ key }) => key), now)
        const reopensAt = Math.min(...ways.map((counters) =>
          Math.max(
            now.getTime(),
            ...rows.filter(({ failures, key }) => {
              const counter = counters.find((c) => c.key === key)
              return counter !== undefined && failures >= counter.rule.limit
            }).map(({ windowEndsAt }) => windowEndsAt.getTime())
          )
        ))
        return yield* new TooManyRequests({
          message: "Too many failed sign-ins; try again later",
          retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now.getTime()) / 1000))
        })
      })

    const reserve = Effect.fn("SignInThrottle.reserve")(function*(attempt: SignInAttempt) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const backOffSince = new Date(now.getTime() - Duration.toMillis(backOffMemory))
      const device = Option.map(attempt.device, (nonce) => deviceCounter(limits, nonce))
      if (Option.isSome(device) && (yield* repo.reserve([device.value], now, backOffSince))) {
        return { at: now, device } satisfies Reservation
      }
      const unknownDevice = Object.values(countersOf(limits, attempt))
      if (yield* repo.reserve(unknownDevice, now, backOffSince)) {
        return { at: now, device: Option.none() } satisfies Reservation
      }
      return yield* refusal([unknownDevice, ...Option.toArray(device).map((counter) => [counter])], now)
    })

    /** After a check that yielded a user or failed with a typed error (queue full, database away). */
    const settle = (attempt: SignInAttempt, reservation: Reservation, signedIn: boolean) => {
      const undo = (counter: Counter) => signedIn ? repo.clear(counter.key) : repo.giveBack(counter.key, reservation.at)
      const { account, accountAndClient, client } = countersOf(limits, attempt)
      return Effect.all(
        Option.isSome(reservation.device)
          ? [undo(reservation.device.value)]
          : [
            undo(accountAndClient),
            repo.giveBack(client.key, reservation.at),
            repo.giveBack(account.key, reservation.at)
          ],
        { discard: true }
      ).pipe(
        Effect.catchCause((cause) => Effect.logWarning("A sign-in attempt could not be given back", cause))
      )
    }

    return {
      /**
       * Runs `check` as one counted attempt: it yields the user for the right credentials and
       * none for wrong ones. Fails with TooManyRequests, without running `check`, when a counter
       * of the attempt is full (for a known device: its own, and then one of an unknown device's).
       */
      attempt: <A, E, R>(attempt: SignInAttempt, check: Effect.Effect<Option.Option<A>, E, R>) =>
        Effect.flatMap(reserve(attempt), (reservation) =>
          Effect.onExit(
            check,
            // A wrong password stays counted, and so does a check cut short by the client hanging
            // up, so hanging up is no way around the limits.
            Exit.match({
              onSuccess: (user) => Option.isSome(user) ? settle(attempt, reservation, true) : Effect.void,
              onFailure: (cause) => Cause.hasFails(cause) ? settle(attempt, reservation, false) : Effect.void
            })
          )),

      /** Deletes counters whose window ended longer ago than the back-off is remembered. */
      removeExpired: Effect.fn("SignInThrottle.removeExpired")(function*(batch: number) {
        const now = yield* Clock.currentTimeMillis
        return yield* repo.removeEndedBefore(new Date(now - Duration.toMillis(backOffMemory)), batch)
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(SignInFailuresRepo.layer))
}
