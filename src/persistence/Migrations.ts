/**
 * Runs the numbered SQL files of `migrations/` (`0001_name.sql`, ...) with PgMigrator at
 * start-up. PgMigrator locks its table, so instances starting together migrate once.
 */
import { fileURLToPath } from "node:url"

import { NodeServices } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, FileSystem, Layer } from "effect"
import type { SqlError } from "effect/sql"
import { SqlClient } from "effect/sql"

import { sqlState } from "./DatabaseErrors.js"

export const migrationsDirectory = fileURLToPath(new URL("../../migrations", import.meta.url))

/** A dollar quote's opening (`$$`, `$body$`); `$1` is a parameter, not a quote. */
const dollarQuote = /\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/y

/**
 * The statements of a SQL file, in order. @effect/sql-pg sends every statement with the extended
 * protocol, which takes one statement at a time (node-postgres sent a query without parameters
 * as a simple Query, which may hold several). The file is split at the semicolons that end a
 * statement, not those inside a string, a quoted identifier, a dollar-quoted body (`$$ ... $$`)
 * or a comment; a part that holds only comments is left out.
 */
export const sqlStatements = (text: string): Array<string> => {
  const statements: Array<string> = []
  const end = text.length
  let start = 0
  let meaningful = false
  let i = 0
  /** Past the quoted text opened at `i` by `quote`; `escapes`: an E'...' string, where `\` escapes. */
  const skipQuoted = (quote: string, escapes: boolean) => {
    i++
    while (i < end) {
      if (escapes && text[i] === "\\") i += 2
      else if (text[i] === quote && text[i + 1] === quote) i += 2
      else if (text[i] === quote) {
        i++
        return
      } else i++
    }
  }
  while (i < end) {
    const c = text[i]!
    if (c === "-" && text[i + 1] === "-") {
      const lineEnd = text.indexOf("\n", i)
      i = lineEnd === -1 ? end : lineEnd + 1
    } else if (c === "/" && text[i + 1] === "*") {
      // Block comments nest in PostgreSQL.
      let depth = 0
      do {
        if (text.startsWith("/*", i)) {
          depth++
          i += 2
        } else if (text.startsWith("*/", i)) {
          depth--
          i += 2
        } else i++
      } while (depth > 0 && i < end)
    } else if (c === ";") {
      if (meaningful) statements.push(text.slice(start, i).trim())
      start = ++i
      meaningful = false
    } else {
      if (!/\s/.test(c)) meaningful = true
      const previous = text[i - 1] ?? ""
      if (c === "'") skipQuoted("'", /[eE]/.test(previous) && !/[\w$]/.test(text[i - 2] ?? ""))
      else if (c === "\"") skipQuoted("\"", false)
      else if (c === "$" && !/[\w$]/.test(previous)) {
        dollarQuote.lastIndex = i
        const tag = dollarQuote.exec(text)?.[0]
        if (tag === undefined) i++
        else {
          const close = text.indexOf(tag, i + tag.length)
          i = close === -1 ? end : close + tag.length
        }
      } else i++
    }
  }
  if (meaningful) statements.push(text.slice(start).trim())
  return statements
}

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
            Effect.succeed(Effect.flatMap(SqlClient.SqlClient, (sql) =>
              Effect.forEach(sqlStatements(text), (statement) => sql.unsafe(statement).unprepared, {
                discard: true
              })))
          ])
        )
    )
  }).pipe(
    Effect.map((migrations) => migrations.toSorted(([a], [b]) => a - b)),
    Effect.mapError((cause) =>
      new PgMigrator.MigrationError({ kind: "BadState", message: `Cannot read ${directory}: ${cause}` })
    )
  )

/**
 * PgMigrator creates its table before it locks it: of instances starting together on an empty
 * database, all but one fail that CREATE TABLE (duplicate table, or its row type, or a unique
 * violation in the catalog). Run again, they find the table and wait on its lock.
 */
const tableRaceStates = new Set(["42P07", "42710", "23505"])
const lostTableRace = (error: PgMigrator.MigrationError | SqlError.SqlError) =>
  error._tag === "SqlError" && tableRaceStates.has(sqlState(error) ?? "")

/** Applies the migrations not yet applied and answers them; needs only the PgClient. */
export const runMigrations = PgMigrator.run({ loader: sqlFiles(migrationsDirectory) }).pipe(
  Effect.retry({ while: lostTableRace, times: 3 }),
  Effect.tap((applied) =>
    applied.length > 0
      ? Effect.logInfo(`Applied migrations ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
      : Effect.void
  ),
  Effect.provide(NodeServices.layer)
)

/** The migrations as a layer: what depends on it starts on a migrated database. */
export const Migrations = Layer.effectDiscard(runMigrations)
