/**
 * Announces committed changes of what the public sees. In-process readers learn of a change
 * synchronously (`version`) and through a PubSub; other instances through PostgreSQL
 * LISTEN/NOTIFY (NOTIFY is sent inside the change's transaction, so it leaves only on commit).
 * A notification means "look again": receiving one twice is harmless. The embedded PGlite
 * serves this process only, so there is no other instance to tell, and LISTEN/NOTIFY is left
 * out there (it shares one session between connections and only stalls it).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, PubSub, Schedule, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../Config.js"
import { orUnavailable } from "../persistence/DatabaseErrors.js"
import { listen } from "../persistence/Notifications.js"

const channel = "status_page_changes"

export class StateChanges extends Effect.Service<StateChanges>()("StateChanges", {
  scoped: Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const { databaseUrl } = yield* AppConfig
    const sharedDatabase = Option.isSome(databaseUrl)
    const instance = randomUUID()
    const pubsub = yield* PubSub.sliding<number>(16)
    let version = 0

    const bump = Effect.suspend(() => PubSub.publish(pubsub, ++version))

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
     * Runs `change` in a transaction that also sends the NOTIFY, then tells in-process readers.
     * Database errors become 503 (connection lost) or defects, as everywhere else.
     */
    const commit = <A, E, R>(change: Effect.Effect<A, E, R>) =>
      orUnavailable(sql.withTransaction(Effect.zipLeft(change, notifyOthers))).pipe(
        Effect.tap(() => bump)
      )

    return {
      commit,
      /** Increases with every change this process knows of; a cache built at an older version is stale. */
      version: () => version,
      subscribe: PubSub.subscribe(pubsub)
    } as const
  })
}) {}
