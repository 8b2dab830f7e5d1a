/**
 * LISTEN on a PostgreSQL channel over a connection of its own, as a stream that FAILS when the
 * connection is lost (closed, terminated, or silent past a heartbeat), so the caller can listen
 * again. @effect/sql-pg's `listen` swallows its connection's errors: after a database restart
 * or `pg_terminate_backend` its stream would stay open and silent for good.
 */
import { Effect, Redacted, Stream } from "effect"
import pg from "pg"

const heartbeatEveryMs = 5_000
const heartbeatTimeoutMs = 5_000

export class ListenError extends Error {}

/** Emits each notification's payload; the first element is `undefined`: "listening (again) from now on". */
export const listen = (
  url: Redacted.Redacted<string>,
  channel: string
): Stream.Stream<string | undefined, ListenError> =>
  Stream.asyncScoped<string | undefined, ListenError>((emit) =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const client = new pg.Client({
            connectionString: Redacted.value(url),
            keepAlive: true,
            connectionTimeoutMillis: 5_000
          })
          const lost = (reason: string) => void emit.fail(new ListenError(`the LISTEN connection was lost: ${reason}`))
          client.on("error", (error) => lost(error.message))
          client.on("end", () => lost("closed"))
          client.on("notification", (message) => {
            if (message.channel === channel) void emit.single(message.payload ?? "")
          })
          try {
            await client.connect()
            await client.query(`listen ${client.escapeIdentifier(channel)}`)
          } catch (error) {
            client.removeAllListeners()
            client.on("error", () => undefined)
            void client.end().catch(() => undefined)
            throw error
          }
          void emit.single(undefined)
          // A connection cut without a FIN stays "open": a query that does not answer ends it.
          const heartbeat = setInterval(() => {
            const timer = setTimeout(() => lost("heartbeat timed out"), heartbeatTimeoutMs)
            client.query("select 1").then(() => clearTimeout(timer), (error: Error) => {
              clearTimeout(timer)
              lost(error.message)
            })
          }, heartbeatEveryMs)
          return { client, heartbeat }
        },
        catch: (cause) =>
          new ListenError(`LISTEN ${channel} failed: ${cause instanceof Error ? cause.message : String(cause)}`)
      }),
      ({ client, heartbeat }) =>
        Effect.sync(() => {
          clearInterval(heartbeat)
          client.removeAllListeners("end")
          client.on("error", () => undefined)
          void client.end().catch(() => undefined)
        })
    )
  )
