/**
 * Announces committed changes of what the public sees. In-process readers learn of a change
 * synchronously (`version`) and through a PubSub; other instances through PostgreSQL
 * LISTEN/NOTIFY (NOTIFY is sent inside the change's transaction, so it leaves only on commit).
 * A notification means "look again": receiving one twice is harmless.
 *
 * Read-your-writes: an in-process read side (the public snapshot) registers with
 * `trackApplied` and reports each version it has caught up with; `commit` then returns only
 * once it has, so the writer's next read shows its change. The wait ends when the read side
 * reports (a rebuild finished or failed), not on a timer; the bound is a safety net only. A
 * process without a read side (a worker) does not wait. The embedded PGlite
 * serves this process only, so there is no other instance to tell, and LISTEN/NOTIFY is left
 * out there (it shares one session between connections and only stalls it).
 */
import { randomUUID } from "node:crypto"

import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, PubSub, Schedule, Stream, SubscriptionRef } from "effect"

import { AppConfig } from "../Config.js"
import { orUnavailable, sqlState } from "../persistence/DatabaseErrors.js"
import { listen } from "../persistence/Notifications.js"

const channel = "status_page_changes"

/** How long a write's response waits at most for the read side to show it; it never fails the write. */
const appliedWait = "2 seconds"

/**
 * A deadlock (SQLSTATE 40P01) or serialization failure (40001) rolled the whole transaction back:
 * PostgreSQL chose it as the victim of two writers locking the same rows in opposite orders (an
 * operator's change of a component and one of an incident naming it). Running it again is the
 * remedy; after three tries the defect goes up as before.
 */
const isTransactionConflict = (defect: unknown) =>
  (defect as { _tag?: unknown } | null)?._tag === "SqlError" &&
  ["40P01", "40001"].includes(sqlState(defect as SqlError) ?? "")

const retryConflicts = <A, E, R>(transaction: Effect.Effect<A, E, R>, triesLeft = 3): Effect.Effect<A, E, R> =>
  Effect.catchSomeDefect(
    transaction,
    (defect) =>
      triesLeft > 0 && isTransactionConflict(defect)
        ? Option.some(retryConflicts(transaction, triesLeft - 1))
        : Option.none()
  )

export class StateChanges extends Effect.Service<StateChanges>()("StateChanges", {
  scoped: Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const { databaseUrl } = yield* AppConfig
    const sharedDatabase = Option.isSome(databaseUrl)
    const instance = randomUUID()
    const pubsub = yield* PubSub.sliding<number>(16)
    let version = 0
    /** The highest version the in-process read side has caught up with, and how many report it. */
    const applied = yield* SubscriptionRef.make(0)
    let readSides = 0

    /** Announces the next version in process; returns it. */
    const bump = Effect.suspend(() => {
      const next = ++version
      return Effect.as(PubSub.publish(pubsub, next), next)
    })

    const awaitApplied = (target: number) =>
      Effect.suspend(() =>
        readSides === 0 ? Effect.void : applied.changes.pipe(
          Stream.takeUntil((caughtUp) => caughtUp >= target),
          Stream.runDrain,
          Effect.timeout(appliedWait),
          Effect.ignore
        )
      )

    // Another instance's change: NOTIFY from ourselves is skipped, the in-process path covered it.
    // Whenever listening starts again after a lost connection, changes may have been missed
    // meanwhile: readers look again (`undefined`).
    if (Option.isSome(databaseUrl)) {
      yield* listen(databaseUrl.value, channel).pipe(
        Stream.filter((sender) => sender !== instance),
        Stream.runForEach(() => bump),
        Effect.tapErrorCause((cause) => Effect.logWarning("Listening for changes failed; retrying", cause)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkScoped
      )
    }
    const notifyOthers = sharedDatabase ? Effect.asVoid(sql`select pg_notify(${channel}, ${instance})`) : Effect.void

    /**
     * Runs `change` in a transaction that also sends the NOTIFY, tells in-process readers, and
     * returns once the read side shows the change (changes are rare next to reads: a write may
     * wait for one rebuild). Database errors become 503 (connection lost) or defects, as
     * everywhere else.
     */
    const commit = <A, E, R>(change: Effect.Effect<A, E, R>) =>
      retryConflicts(orUnavailable(sql.withTransaction(Effect.zipLeft(change, notifyOthers)))).pipe(
        Effect.tap(() => Effect.flatMap(bump, awaitApplied))
      )

    /**
     * Registers the in-process read side for the scope's lifetime; it calls the returned function
     * with each version it has caught up with (or given up on), which releases the waiting writes.
     */
    const trackApplied = Effect.acquireRelease(
      Effect.sync(() => {
        readSides++
        return (caughtUp: number) => SubscriptionRef.update(applied, (previous) => Math.max(previous, caughtUp))
      }),
      () => Effect.sync(() => readSides--)
    )

    return {
      commit,
      trackApplied,
      /** Increases with every change this process knows of; a cache built at an older version is stale. */
      version: () => version,
      subscribe: PubSub.subscribe(pubsub)
    } as const
  })
}) {}
