/**
 * Backups of the embedded database (docs/operations.md, "Backups"). Only one process may open
 * DATA_DIR, so a running service's backup is taken by the service itself, on its own PGlite
 * (`EmbeddedDatabase`, which Database.ts provides): a copy of the data directory made while no
 * statement runs, archived as it is sent (DataDirectoryArchive). The restore writes an archive's
 * data directory beside DATA_DIR's, opens it, and checks it is this service's and not newer.
 */
import { randomUUID } from "node:crypto"
import { constants } from "node:fs"
import { cp, readdir, readFile, rm } from "node:fs/promises"
import net from "node:net"
import * as Path from "node:path"

import { PGlite } from "@electric-sql/pglite"
import { Context, Effect, Option } from "effect"

import { migrationsDirectory } from "./Migrations.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

/** The PGlite this process opened under DATA_DIR; none on PostgreSQL, or where the process did not open it. */
export interface EmbeddedDatabaseHandle {
  readonly db: PGlite
  readonly dataDir: string
}

export const EmbeddedDatabase = Context.Reference<Option.Option<EmbeddedDatabaseHandle>>("EmbeddedDatabase", {
  defaultValue: () => Option.none()
})

/** PGlite's data directory under DATA_DIR, where Database.ts opens it. */
export const dataDirectoryOf = (dataDir: string) => Path.join(dataDir, "pgdata")

/** The copies a backup archives, in DATA_DIR: its file system (a reflink where it can), and the one place the image may write. */
const copyPrefix = "backup-copy-"

/**
 * PostgreSQL writes the data pages it holds in memory to the files, so that the write-ahead log
 * since then is short (the restore replays it). Through the pool, as a statement of its own:
 * EmbeddedSessions runs it between other connections' transactions.
 */
export const checkpoint = Effect.flatMap(RetryingSqlClient, (sql) => Effect.asVoid(sql`checkpoint`))

/**
 * A copy of the data directory at one instant, in DATA_DIR, removed when the scope closes.
 *
 * Why the copy is consistent: it is made inside `db.runExclusive`, the lock under which
 * EmbeddedSessions runs every protocol message of every connection (and PGlite its own
 * queries). PostgreSQL inside PGlite is one process on this thread, and it writes its files only
 * while it runs a message, synchronously, straight to the files (NODEFS: no cache of its own in
 * between). So while the lock is held the files do not change, and they are what they would be
 * if the process had stopped dead at that instant: a crash-consistent copy. Every committed
 * transaction's log record is in `pg_wal` (each commit writes it before it answers; `-F` only
 * skips the fsync, which matters to a power loss, not to a copy read back through the same
 * operating system). A transaction still open on some connection has no commit record, and a data
 * page written ahead of the log is rewritten from it. When the copy is opened, PostgreSQL's crash
 * recovery replays the log from the last checkpoint (`checkpoint`, just before) and rolls back
 * what never committed: the database as of the instant of the copy. Writes that come meanwhile
 * wait for the lock (for as long as the copy takes, a reflink or the files' size at disk speed)
 * and are not in the backup; nothing fails for them.
 */
export const copyDataDirectory = (handle: EmbeddedDatabaseHandle) =>
  Effect.acquireRelease(
    Effect.tryPromise(async () => {
      const into = Path.join(handle.dataDir, `${copyPrefix}${randomUUID()}`)
      try {
        await handle.db.runExclusive(() =>
          cp(dataDirectoryOf(handle.dataDir), into, {
            recursive: true,
            // A copy-on-write clone where the file system has them, else a copy.
            mode: constants.COPYFILE_FICLONE,
            // What PostgreSQL itself leaves out of a base backup: the lock file of a running server.
            filter: (source) => !/(^|\/)postmaster\.(pid|opts)$/.test(source)
          })
        )
        return into
      } catch (error) {
        await rm(into, { recursive: true, force: true })
        throw error
      }
    }),
    (into) => Effect.promise(() => rm(into, { recursive: true, force: true }))
  )

/** Copies left by a process that stopped during a backup: only this process opens DATA_DIR, so none is in use. */
export const removeLeftoverCopies = (dataDir: string) =>
  Effect.promise(async () => {
    const entries = await readdir(dataDir).catch(() => [])
    await Promise.all(
      entries.filter((name) => name.startsWith(copyPrefix)).map((name) =>
        rm(Path.join(dataDir, name), { recursive: true, force: true })
      )
    )
  })

/** The PostgreSQL major version of a data directory (its PG_VERSION), if it has one. */
export const postgresVersionOf = (pgdata: string) =>
  readFile(Path.join(pgdata, "PG_VERSION"), "utf8").then((text) => text.trim(), () => undefined)

/**
 * Whether a service serves the embedded database of `dataDir` now: its socket answers
 * (EmbeddedServer). A service that had to put its socket elsewhere (a path too long) is not seen.
 */
export const servedNow = (dataDir: string) =>
  new Promise<boolean>((resolve) => {
    const probe = net.connect(Path.join(dataDir, "socket", ".s.PGSQL.5432"))
    probe.once("connect", () => {
      probe.destroy()
      resolve(true)
    })
    probe.once("error", () => resolve(false))
  })

/** The migrations this version of the service has: id and name, from `migrations/`. */
export const knownMigrations = async () =>
  new Map(
    (await readdir(migrationsDirectory)).flatMap((file) => {
      const match = /^(\d+)_(.+)\.sql$/.exec(file)
      return match ? [[Number(match[1]), match[2]!] as const] : []
    })
  )

/** What the restored database's migrations say. */
export type RestoredMigrations =
  | { readonly _tag: "Ours"; readonly latest: number; readonly newer: number }
  | { readonly _tag: "Foreign"; readonly reason: string }
  | { readonly _tag: "Newer"; readonly latest: number; readonly known: number }

/**
 * What the migrations a restored database has applied (`applied`, by number) say, against those
 * this version has (`known`): it is this service's when it has some and each is the one of that
 * number here; it is newer when it has one this version does not know; older ones are run at the
 * next start.
 */
export const judgeMigrations = (
  applied: ReadonlyArray<{ readonly id: number; readonly name: string }>,
  known: ReadonlyMap<number, string>
): RestoredMigrations => {
  if (applied.length === 0) return { _tag: "Foreign", reason: "it has no migrations of this service" }
  const latest = Math.max(...applied.map((migration) => migration.id))
  const knownLatest = Math.max(...known.keys())
  if (latest > knownLatest) return { _tag: "Newer", latest, known: knownLatest }
  const other = applied.find((migration) => known.get(migration.id) !== migration.name)
  if (other !== undefined) {
    return { _tag: "Foreign", reason: `its migration ${other.id} is "${other.name}", which this service's is not` }
  }
  return { _tag: "Ours", latest, newer: [...known.keys()].filter((id) => id > latest).length }
}

/**
 * Opens the data directory `pgdata` (PostgreSQL replays its log: the crash recovery of a copy
 * taken while it ran), reads which migrations it has applied, closes it, and judges them.
 */
export const checkRestored = async (pgdata: string): Promise<RestoredMigrations> => {
  const known = await knownMigrations()
  const db = await PGlite.create(pgdata)
  try {
    const applied = await db.query<{ id: number; name: string }>(
      "select migration_id as id, name from effect_sql_migrations order by migration_id"
    ).then(
      (result) => result.rows,
      (error: unknown) => {
        // 42P01: no such table.
        if (error instanceof Error && "code" in error && error.code === "42P01") return []
        throw error
      }
    )
    return judgeMigrations(applied, known)
  } finally {
    await db.close()
  }
}
