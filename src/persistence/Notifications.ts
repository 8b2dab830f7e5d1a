/**
 * LISTEN on a PostgreSQL channel over a connection of its own, as a stream that FAILS when the
 * connection is lost (closed, terminated, or silent past a heartbeat), so the caller can listen
 * again. PgClient's `listen` would hold one of the pool's connections for good, and nothing
 * there notices a connection cut without a FIN: its stream would stay open and silent. And
 * NOTIFY, sent on the caller's client (in its transaction, if it runs in one).
 */
import { PgConnection } from "@effect/sql-pg"
import { Clock, Effect, type Redacted, Stream } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

import { databaseConnection } from "./DatabaseHosts.js"

const heartbeatEveryMs = 5_000
const heartbeatTimeoutMs = 5_000

export class ListenError extends Error {}

/** What went wrong, in the words of the socket or the server beneath the SqlError. */
const messageOf = (error: SqlError.SqlError): string =>
  error.reason.cause instanceof Error ? error.reason.cause.message : error.message

/** The connection's timeout and the heartbeat run on the process's clock, as node-postgres' timers did. */
const realClock = Clock.Clock.defaultValue()

/** Emits each notification's payload; the first element is `undefined`: "listening (again) from now on". */
export const listen = (
  url: Redacted.Redacted<string>,
  channel: string
): Stream.Stream<string | undefined, ListenError> =>
  Stream.unwrap(
    Effect.gen(function*() {
      // To the primary of a DATABASE_URL with several hosts (DatabaseHosts), as the pool's are.
      const connection = yield* PgConnection.make({ ...yield* databaseConnection(url), connectTimeout: 5_000 })
      // Pinned, so that the heartbeat's queries run on the session beside the listener.
      const session = yield* connection.pin
      const notifications = yield* session.listen(channel)
      const lost = (reason: string) => new ListenError(`the LISTEN connection was lost: ${reason}`)
      // A connection cut without a FIN stays "open": a query that does not answer ends it.
      const heartbeat = session.query("select 1").pipe(
        Effect.mapError((error) => lost(messageOf(error))),
        Effect.timeoutOrElse({
          duration: heartbeatTimeoutMs,
          orElse: () => Effect.fail(lost("heartbeat timed out"))
        }),
        Effect.delay(heartbeatEveryMs),
        Effect.forever,
        Effect.provideService(Clock.Clock, realClock)
      )
      return Stream.fromQueue(notifications).pipe(
        Stream.map((notification): string | undefined => notification.payload),
        // Closed, terminated or broken: the session fails its listeners with what happened.
        Stream.mapError((error) => lost(messageOf(error))),
        Stream.merge(Stream.fromEffectDrain(heartbeat)),
        Stream.prepend([undefined])
      )
    }).pipe(
      Effect.mapError((error) => new ListenError(`LISTEN ${channel} failed: ${messageOf(error)}`)),
      Effect.provideService(Clock.Clock, realClock)
    )
  )

/** NOTIFY `channel` with `payload`: inside a transaction, it leaves only when that commits. */
export const notify = (sql: SqlClient.SqlClient, channel: string, payload: string) =>
  Effect.asVoid(sql`select pg_notify(${channel}, ${payload})`)
