/**
 * The database connection: a PostgreSQL server when DATABASE_URL is set, otherwise the
 * embedded PGlite served over the Postgres wire protocol on a private loopback port, so
 * both run the same @effect/sql-pg code, SQL and migrations. The port asks for a password made
 * at each start and known only to this process (EmbeddedSessions): other local users reach it too.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { access, mkdir } from "node:fs/promises"
import { createRequire } from "node:module"
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

/**
 * PostgreSQL's page cache inside PGlite. PostgreSQL's shared memory, the cache and about 8 MB
 * beside it, is resident in full in PGlite's WebAssembly memory from the start, and that memory
 * never shrinks: 128 MB by default, 16 MB here. 16 MB still holds what checks at 500 monitors
 * keep writing once check_results is large (a leaf page of each index per monitor); at 8 MB
 * storing a result read pages back each time and cost 30-45 % more CPU. The operating system
 * caches the data files beneath it anyway. Smaller work_mem, temp_buffers or wal_buffers saved
 * nothing measurable (docs/benchmarks.md, "Cost per check").
 */
const embeddedSharedBuffers = "16MB"

/**
 * Creates the database files of a new data directory in a child process. PGlite's initdb grows
 * its own WebAssembly memory to about 600 MB, which this process would keep resident after it
 * is freed (about 120 MB more at idle, for good: docs/benchmarks.md).
 */
const initdbOnce = async (pgdata: string) => {
  const exists = await access(Path.join(pgdata, "PG_VERSION")).then(() => true, () => false)
  if (exists) return
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const script =
    "const { PGlite } = await import(process.argv[1]); await (await PGlite.create(process.argv[2])).close()"
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script, pglite, pgdata],
      (error) => error ? reject(error) : resolve()
    )
  )
}

/** Starts PGlite under `dataDir` and serves it on 127.0.0.1 at a free port, behind a new random password. */
const embeddedServer = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      await mkdir(dataDir, { recursive: true })
      const pgdata = Path.join(dataDir, "pgdata")
      await initdbOnce(pgdata)
      const db = await PGlite.create(pgdata, {
        startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${embeddedSharedBuffers}`]
      })
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
