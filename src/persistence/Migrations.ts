/**
 * Runs the numbered SQL files of `migrations/` (`0001_name.sql`, ...) with PgMigrator at
 * start-up. PgMigrator locks its table, so instances starting together migrate once.
 */
import { fileURLToPath } from "node:url"

import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"

import { sqlState } from "./DatabaseErrors.js"

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

/**
 * PgMigrator creates its table before it locks it: of instances starting together on an empty
 * database, all but one fail that CREATE TABLE (duplicate table, or its row type, or a unique
 * violation in the catalog). Run again, they find the table and wait on its lock.
 */
const tableRaceStates = new Set(["42P07", "42710", "23505"])
const lostTableRace = (error: PgMigrator.MigrationError | SqlError) =>
  error._tag === "SqlError" && tableRaceStates.has(sqlState(error) ?? "")

/** Applies the migrations not yet applied and answers them; needs only the PgClient. */
export const runMigrations = PgMigrator.run({ loader: sqlFiles(migrationsDirectory) }).pipe(
  Effect.retry({ while: lostTableRace, times: 3 }),
  Effect.tap((applied) =>
    applied.length > 0
      ? Effect.logInfo(`Applied migrations ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
      : Effect.void
  ),
  Effect.provide(NodeContext.layer)
)

/** The migrations as a layer: what depends on it starts on a migrated database. */
export const Migrations = Layer.effectDiscard(runMigrations)
