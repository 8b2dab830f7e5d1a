/**
 * Runs the numbered SQL files of `migrations/` (`0001_name.sql`, ...) with PgMigrator at
 * start-up. PgMigrator locks its table, so instances starting together migrate once.
 */
import { fileURLToPath } from "node:url"

import { FileSystem } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"

export const migrationsDirectory = fileURLToPath(new URL("../../migrations", import.meta.url))

const sqlFiles = (directory: string): PgMigrator.Loader<FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const files = yield* fs.readDirectory(directory)
    return yield* Effect.forEach(
      files.flatMap((file) => {
        const match = /^(\d+)_(.+)\.sql$/.exec(file)
        return match ? [{ file, id: Number(match[1]), name: match[2]! }] : []
      }),
      ({ file, id, name }) =>
        fs.readFileString(`${directory}/${file}`).pipe(
          Effect.map((text): PgMigrator.ResolvedMigration => [
            id,
            name,
            Effect.succeed(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))
          ])
        )
    )
  }).pipe(
    Effect.map((migrations) => migrations.toSorted(([a], [b]) => a - b)),
    Effect.mapError((cause) =>
      new PgMigrator.MigrationError({ reason: "bad-state", message: `Cannot read ${directory}: ${cause}` })
    )
  )

export const Migrations = Layer.effectDiscard(
  PgMigrator.run({ loader: sqlFiles(migrationsDirectory) }).pipe(
    Effect.tap((applied) =>
      applied.length > 0
        ? Effect.logInfo(`Applied migrations ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
        : Effect.void
    )
  )
)
