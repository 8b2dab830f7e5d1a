/**
 * The database connection: a PostgreSQL server when DATABASE_URL is set, otherwise the
 * embedded PGlite served over the Postgres wire protocol on a private loopback port, so
 * both run the same @effect/sql-pg code, SQL and migrations.
 */
import { mkdir } from "node:fs/promises"
import * as Path from "node:path"

import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Option, String } from "effect"

import { AppConfig } from "../Config.js"
import { shareSessionsSafely } from "./EmbeddedSessions.js"
import { Migrations } from "./Migrations.js"

const poolSize = 10

/** Starts PGlite under `dataDir` and serves it on 127.0.0.1 at a free port. */
const embeddedServer = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      await mkdir(dataDir, { recursive: true })
      const db = await PGlite.create(Path.join(dataDir, "pgdata"))
      // One connection more than the pool, so the listener of later issues fits too.
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: poolSize + 4 })
      shareSessionsSafely(server, db)
      await server.start()
      const [host, port] = server.getServerConn().split(":")
      return { db, server, host: host!, port: Number(port) }
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
          Effect.map(({ host, port }) => ({ host, port, database: "postgres", username: "postgres" }))
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
