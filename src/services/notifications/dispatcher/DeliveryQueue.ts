/**
 * A durable delivery queue, which webhook deliveries and subscriber mail both are
 * (docs/notifications.md, "The dispatcher"). The items wait in the database, due at a time kept
 * in their row, so a restart loses no retry (RetrySchedule); a claim is a lease, so a dispatcher
 * that dies mid-attempt only delays what it held; and the channel's work pump hears when an item
 * attempted here comes due again, so it claims it then rather than at its next idle poll. Each
 * channel brings its repository's claim (built on persistence/DeliveryQueueSql.ts) and its own
 * attempt: WebhookDeliveries, MailDeliveries.
 */
import type { Duration, Scope } from "effect"
import { Effect } from "effect"

import { leaseEnd } from "../../../persistence/DeliveryQueueSql.js"
import type { WorkPump } from "./WorkPump.js"
import { startWorkPump } from "./WorkPump.js"

export interface DeliveryQueue<A, E> {
  /** When a claim taken at `now` runs out. */
  readonly leaseFrom: (now: Date) => Date
  /** Claims up to `limit` due items, oldest first, for one lease. */
  readonly claimDue: (limit: number) => Effect.Effect<ReadonlyArray<A>, E>
  /** An item attempted here comes due again at `at`: its retry, or the end of a claim left to run out. */
  readonly dueAgain: (at: Date) => void
  /** Tells `listener`, for the scope's lifetime, when an item attempted here comes due again (epoch milliseconds). */
  readonly onDueAgain: (listener: (millis: number) => void) => Effect.Effect<void, never, Scope.Scope>
}

export const makeDeliveryQueue = <A, E>(channel: {
  /** Longer than an attempt with its bookkeeping, so a claimed item is not claimed twice. */
  readonly lease: Duration.Duration
  /** The channel's clock: its claims and attempts agree on the time. */
  readonly now: Effect.Effect<Date>
  /** The repository's claim of the items due at `now`, pushed `lease` ahead. */
  readonly claim: (now: Date, limit: number, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<A>, E>
}): DeliveryQueue<A, E> => {
  // Who hears when an item attempted here comes due again (the dispatcher's pump).
  const listeners = new Set<(millis: number) => void>()
  return {
    leaseFrom: (now) => leaseEnd(now, channel.lease),
    claimDue: (limit) => Effect.flatMap(channel.now, (now) => channel.claim(now, limit, channel.lease)),
    dueAgain: (at) => {
      for (const listener of listeners) listener(at.getTime())
    },
    onDueAgain: (listener) =>
      Effect.asVoid(Effect.acquireRelease(
        Effect.sync(() => listeners.add(listener)),
        () => Effect.sync(() => listeners.delete(listener))
      ))
  }
}

/**
 * Starts a channel's work pump, claiming from its queue; it runs until the scope closes. Retries
 * this process schedules wake the pump when due, not at the next idle poll.
 */
export const startDeliveryPump = <A>(
  queue: Pick<DeliveryQueue<A, unknown>, "claimDue" | "onDueAgain">,
  pump: Omit<WorkPump<A>, "claim">
) =>
  Effect.gen(function*() {
    const running = yield* startWorkPump({ ...pump, claim: queue.claimDue })
    yield* queue.onDueAgain(running.dueAt)
    return running
  })
