/**
 * `status-page restore FILE [--force]`: a backup of the embedded database (`status-page backup`)
 * into DATA_DIR, with the service stopped (./Local.ts). The archive is written beside DATA_DIR's
 * database (`pgdata.restoring-<time>-<random>`), opened (PostgreSQL replays its log: the copy was taken
 * while the service ran) and checked to be this service's database and not from a newer version;
 * only then does it take the place of `pgdata`, the database there before, with --force, moved
 * aside in DATA_DIR as `pgdata.before-restore-<time>`. Everything stays in DATA_DIR: the image
 * may write nowhere else, and a volume mounted there cannot itself be renamed. The next start
 * runs the migrations newer than the backup's, as always.
 */
import { randomBytes } from "node:crypto"
import { mkdir, rename, rm, stat } from "node:fs/promises"
import * as Path from "node:path"

import { Console, DateTime, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"

import { AppConfig } from "../runtime/Config.js"
import { UsageError } from "./CliFailure.js"
import { flagSwitch } from "./Remote.js"

const exists = (path: string) => stat(path).then(() => true, () => false)

/** `20260504T100000Z`: now, in a file name. */
const stamp = Effect.map(
  DateTime.now,
  (now) => DateTime.formatIso(now).replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")
)

const refused = (file: string, reason: string) => new UsageError({ message: `${file} cannot be restored: ${reason}` })

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/** A step on DATA_DIR's files; its failure (permissions, a full disk) is the operator's to fix. */
const onFiles = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new UsageError({ message: `Cannot ${what}: ${reasonOf(error)}` }) })

export const RestoreCommand = Command.make("restore", {
  file: Argument.File("file", { mustExist: true }).pipe(
    Argument.withDescription("A backup written by status-page backup (.tar.gz)")
  ),
  force: flagSwitch("force").pipe(
    Flag.withDescription("Replace a database DATA_DIR already holds (it is moved aside in DATA_DIR, not deleted)")
  )
}, (options) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) {
      return yield* new UsageError({
        message: "DATABASE_URL is set: restore reads backups of the embedded database; restore PostgreSQL with " +
          "pg_restore (docs/operations.md, \"Backups\")"
      })
    }
    // Loaded on use, as the local commands' database: PGlite is most of the CLI's start-up time.
    const { checkRestored, dataDirectoryOf, postgresVersionOf, servedNow } = yield* Effect.promise(() =>
      import("../persistence/EmbeddedBackup.js")
    )
    const { extractArchive, NotABackup } = yield* Effect.promise(() => import("../persistence/DataDirectoryArchive.js"))
    const file = Path.resolve(options.file)
    const dataDir = Path.resolve(config.dataDir)
    const pgdata = dataDirectoryOf(dataDir)
    if (yield* Effect.promise(() => servedNow(dataDir))) {
      return yield* new UsageError({ message: `A service is running on ${dataDir}: stop it first` })
    }
    const holdsDatabase = yield* Effect.promise(() => exists(pgdata))
    if (holdsDatabase && !options.force) {
      return yield* new UsageError({
        message:
          `${dataDir} already holds a database (${pgdata}): pass --force to move it aside and restore in its place`
      })
    }
    const now = yield* stamp
    // Its own name: what it writes is removed if it fails or is stopped, and touches nothing else.
    const staging = Path.join(dataDir, `pgdata.restoring-${now}-${randomBytes(4).toString("hex")}`)
    yield* onFiles(`create ${dataDir}`, () => mkdir(dataDir, { recursive: true }))

    const restored = yield* Effect.tryPromise({
      try: async () => {
        const manifest = await extractArchive(file, staging)
        if ((await postgresVersionOf(staging)) === undefined) throw refused(file, "it holds no database")
        const migrations = await checkRestored(staging).catch((error: unknown) => {
          // PGlite refuses files of another PostgreSQL version, or damaged ones.
          throw refused(file, `its database does not open (${reasonOf(error)})`)
        })
        return { manifest, migrations }
      },
      catch: (error) => {
        if (error instanceof UsageError) return error
        if (error instanceof NotABackup) return refused(file, `it is not a backup of this service: ${error.message}`)
        return new UsageError({ message: `${file} could not be restored into ${dataDir}: ${reasonOf(error)}` })
      }
    }).pipe(
      Effect.flatMap(({ manifest, migrations }) => {
        switch (migrations._tag) {
          case "Foreign":
            return Effect.fail(refused(file, `it is not this service's database: ${migrations.reason}`))
          case "Newer":
            return Effect.fail(refused(
              file,
              `it comes from a newer version of the service (${manifest.serviceVersion}, with migrations up to ` +
                `${migrations.latest}; this one knows up to ${migrations.known}): restore it with that version or later`
            ))
          case "Ours":
            return Effect.succeed({ manifest, migrations })
        }
      }),
      Effect.onError(() => Effect.promise(() => rm(staging, { recursive: true, force: true })))
    )

    const aside = Path.join(dataDir, `pgdata.before-restore-${now}`)
    if (holdsDatabase) {
      yield* onFiles(`move ${pgdata} aside`, () => rename(pgdata, aside))
      yield* Console.log(`Moved the database that was in ${dataDir} to ${aside}; delete it once you no longer need it.`)
    }
    yield* onFiles(`move the restored database to ${pgdata}`, () => rename(staging, pgdata)).pipe(
      // DATA_DIR is never left without a database: the one moved aside goes back.
      Effect.onError(() => holdsDatabase ? Effect.promise(() => rename(aside, pgdata).catch(() => {})) : Effect.void)
    )
    const { manifest, migrations } = restored
    yield* Console.log(
      `Restored ${file} (taken ${manifest.takenAt} by version ${manifest.serviceVersion}) into ${dataDir}.` +
        (migrations.newer === 0
          ? ""
          : ` The next start runs ${migrations.newer} newer migration${migrations.newer === 1 ? "" : "s"}.`)
    )
  })).pipe(
    Command.withDescription(
      "Restore a backup of the embedded database into DATA_DIR (the service stopped); --force replaces one there"
    )
  )
