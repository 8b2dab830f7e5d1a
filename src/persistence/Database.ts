/**
 * The database connection: a PostgreSQL server when DATABASE_URL is set, otherwise the
 * embedded PGlite served over the Postgres wire protocol on a Unix socket in a private directory
 * of DATA_DIR (loopback TCP on Windows), so both run the same @effect/sql-pg code, SQL and
 * migrations. It asks for a password made at each start and known only to this process
 * (EmbeddedSessions), and closes a connection that does not give it in time (EmbeddedServer).
 * A DATABASE_URL may name several servers, to follow a primary that moves (DatabaseHosts).
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { access, mkdir } from "node:fs/promises"
import { createRequire } from "node:module"
import * as Path from "node:path"

import { NodeServices } from "@effect/platform-node"
import { PgClient, PgTypes } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, Result, String } from "effect"

import { AppConfig, invalidData } from "../runtime/Config.js"
import { databaseConnection, parseDatabaseUrl } from "./DatabaseHosts.js"
import { EmbeddedDatabase } from "./EmbeddedBackup.js"
import { serveEmbedded, serveOnSocket } from "./EmbeddedServer.js"
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
 * PostgreSQL fills each new 16 MB WAL segment with zeros before using it, to reserve its disk
 * space. Inside PGlite each write of zeros becomes a fresh 256 kB buffer on the JavaScript side
 * (Emscripten's writev copies its vectors into one array), so a segment's creation allocated
 * 16 MB at once, and the C allocator kept it: the process stepped up 15 MB for good, and the
 * commit that crossed into the segment took 76 ms. Off, the segment is created by writing its
 * last byte. The price: a full disk is met when WAL is written rather than when the segment is
 * made, and the database stops there either way.
 */
const embeddedWalParams = ["-c", "wal_init_zero=off"]

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

/**
 * How long a connection to the embedded database may take to give its password before it is
 * closed; the pool's own take milliseconds. Tests shorten it.
 */
export const EmbeddedHandshakeTimeout = Context.Reference<Duration.Duration>(
  "EmbeddedHandshakeTimeout",
  { defaultValue: () => Duration.seconds(2) }
)

/**
 * Starts PGlite under `dataDir` and serves it behind a new random password: on a Unix socket in
 * a directory only this user may enter, or on 127.0.0.1 at a free port where there are no Unix
 * sockets (Windows).
 */
const embeddedServer = (dataDir: string) =>
  Effect.flatMap(EmbeddedHandshakeTimeout, (handshake) =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        await mkdir(dataDir, { recursive: true })
        const pgdata = Path.join(dataDir, "pgdata")
        await initdbOnce(pgdata)
        const db = await PGlite.create(pgdata, {
          startParams: [
            ...PGlite.defaultStartParams,
            "-c",
            `shared_buffers=${embeddedSharedBuffers}`,
            ...embeddedWalParams
          ]
        })
        const password = randomBytes(32).toString("base64url")
        const options = {
          db,
          password,
          // More than the pool: room for connections it is replacing and a listener beside it.
          maxConnections: poolSize + 4,
          handshakeMillis: Duration.toMillis(handshake)
        }
        const server = process.platform === "win32"
          ? await serveEmbedded({ host: "127.0.0.1", port: 0 }, options)
          : await serveOnSocket(dataDir, options)
        return { db, server, password: Redacted.make(password) }
      }),
      ({ db, server }) =>
        Effect.promise(async () => {
          await server.stop()
          await db.close()
        })
    )).pipe(
      Effect.tap(({ server }) =>
        Effect.logInfo(`Embedded PostgreSQL (PGlite) under ${dataDir}, serving ${server.address}`)
      )
    )

/**
 * int8 (bigint) as its decimal text. @effect/sql-pg reads every column in PostgreSQL's binary
 * format and gives int8 as a JavaScript bigint, where node-postgres (its driver before 4) gave
 * the text: the repositories read bigserial ids and sequences, and counts, as text
 * (`Schema.NumberFromString`, `BigInt(id)`), so they keep it. A bigint parameter is written as
 * the built-in codec writes it. The other types come back as before: timestamptz as a Date,
 * json and jsonb parsed, numeric as text, arrays as arrays.
 */
const int8AsText: PgTypes.Codec<unknown> = {
  decode: (bytes) => Result.map(PgTypes.decode(bytes, PgTypes.OID.int8, 1), (value) => globalThis.String(value)),
  encode: (value) => PgTypes.encode(value, PgTypes.OID.int8)
}

const types = PgTypes.makeRegistry()
types.register(PgTypes.OID.int8, int8AsText, { arrayOid: PgTypes.OID.int8Array })

/**
 * A database that is down answers 503 this quickly instead of hanging requests; with several
 * hosts, each gets its share (DatabaseHosts).
 */
export const connectTimeout = Duration.seconds(5)

/** PgClient (and SqlClient) for the configured database, with camelCase names on the TypeScript side. */
export const DatabaseClient = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const target = yield* Option.match(config.databaseUrl, {
      onSome: (url) =>
        Result.match(parseDatabaseUrl(Redacted.value(url)), {
          onFailure: (message) => Effect.fail(invalidData("DATABASE_URL", message)),
          // Several hosts, or target_session_attrs: each connection goes to the server chosen
          // then (DatabaseHosts). No JIT: the service's statements are short, and PostgreSQL
          // estimates a few of them (the mail hand-over's) costly enough to compile, a second or
          // more each time.
          onSuccess: () =>
            Effect.map(databaseConnection(url, connectTimeout), (connection) => ({
              connection: { ...connection, startupParameters: { jit: "off" } },
              embedded: Option.none()
            }))
        }),
      onNone: () =>
        embeddedServer(config.dataDir).pipe(
          Effect.map(({ db, password, server }) => ({
            connection: {
              // A directory (starting with "/") names the socket `.s.PGSQL.<port>` in it.
              host: server.host,
              port: server.port,
              database: "postgres",
              username: "postgres",
              password,
              // The pool's connections share PGlite's one session (EmbeddedSessions): statements
              // prepared under a name would stay there after their connection is gone, in memory
              // that never shrinks. Unnamed statements, as node-postgres sent them, leave nothing.
              prepare: false
            },
            // For the backup, which must be taken by this process, on its PGlite (EmbeddedBackup).
            embedded: Option.some({ db, dataDir: config.dataDir })
          }))
        )
    })
    return PgClient.layer({
      ...target.connection,
      types,
      maxConnections: poolSize,
      // node-postgres' pool closed a connection idle this long.
      idleTimeout: "10 seconds",
      connectTimeout,
      transformQueryNames: String.camelToSnake,
      transformResultNames: String.snakeToCamel
    }).pipe(
      // The pool's timers (connect time-out, closing idle connections) run on the real clock, as
      // node-postgres' did: a test's TestClock moves the service's time, not its sockets'.
      Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())),
      Layer.merge(Layer.succeed(EmbeddedDatabase, target.embedded))
    )
  })
)

/** A migrated database, ready for the repositories. */
export const Database = Migrations.pipe(
  Layer.provideMerge(DatabaseClient),
  Layer.provide(NodeServices.layer)
)
