/**
 * The database connection: a PostgreSQL server when DATABASE_URL is set, otherwise the
 * embedded PGlite served over the Postgres wire protocol on a private loopback port, so
 * both run the same @effect/sql-pg code, SQL and migrations. The port asks for a password made
 * at each start and known only to this process (EmbeddedSessions): other local users reach it too.
 */
import { randomBytes } from "node:crypto"
import { mkdir } from "node:fs/promises"
import * as Path from "node:path"

import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Option, Redacted, String } from "effect"

import { AppConfig } from "../Config.js"
import { shareSessionsSafely } from "./EmbeddedSessions.js"
import { Migrations } from "./Migrations.js"

export const poolSize = 10

/** Starts PGlite under `dataDir` and serves it on 127.0.0.1 at a free port, behind a new random password. */
const embeddedServer = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      await mkdir(dataDir, { recursive: true })
      const db = await PGlite.create(Path.join(dataDir, "pgdata"))
      const password = randomBytes(32).toString("base64url")
      // One connection more than the pool, so the listener of later issues fits too.
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: poolSize + 4 })
      shareSessionsSafely(server, db, password)
      await server.start()
      const [host, port] = server.getServerConn().split(":")
      return { db, server, host: host!, port: Number(port), password: Redacted.make(password) }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  ).pipe(
    Effect.tap(({ port }) => Effect.logInfo(`Embedded PostgreSQL (PGlite) under ${dataDir}, serving 127.0.0.1:${port}`))
  )

/** PgClient (and SqlClient) for the configured database, with camelCase names on the TypeScript side. */
export const DatabaseClient = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const target = yield* Option.match(config.databaseUrl, {
      onSome: (url) => Effect.succeed({ url }),
      onNone: () =>
        embeddedServer(config.dataDir).pipe(
          Effect.map(({ host, password, port }) => ({
            host,
            port,
            database: "postgres",
            username: "postgres",
            password
          }))
        )
    })
    return PgClient.layer({
      ...target,
      maxConnections: poolSize,
      // A database that is down answers 503 quickly instead of hanging requests.
      connectTimeout: "5 seconds",
      transformQueryNames: String.camelToSnake,
      transformResultNames: String.snakeToCamel
    })
  })
)

/** A migrated database, ready for the repositories. */
export const Database = Migrations.pipe(
  Layer.provideMerge(DatabaseClient),
  Layer.provide(NodeContext.layer)
)
