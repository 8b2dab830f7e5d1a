/**
 * Rows of Uptime Kuma's SQLite database as node:sqlite returns them, and what the Uptime Kuma
 * importer needs to read them: typed columns (a column an older Kuma lacks reads as null), the
 * name a message gives a record, JSON columns, Kuma's timestamps, and a check of an entry
 * against this service's schema before it goes into the bundle.
 */
import type { SQLOutputValue } from "node:sqlite"

import { Effect, Exit, Schema } from "effect"

import { fieldIssues, pathWords } from "../../api/IssueMessages.js"
import type { SkippedRecord } from "../../domain/ImportBundle.js"
import { ImportSourceError } from "./ImportSourceError.js"

export type KumaRow = Readonly<Record<string, SQLOutputValue | undefined>>

/** A column as text: null when absent, NULL or empty; a number as its digits. */
export const text = (row: KumaRow, column: string): string | null => {
  const value = row[column]
  if (typeof value === "string") return value === "" ? null : value
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  return null
}

/** A column as a number: null when absent, NULL or not a number. */
export const num = (row: KumaRow, column: string): number | null => {
  const value = row[column]
  if (typeof value === "number") return value
  if (typeof value === "bigint") return Number(value)
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  return null
}

/** A BOOLEAN column (SQLite stores 0 and 1; knex sometimes wrote "true"). */
export const flag = (row: KumaRow, column: string): boolean => {
  const value = num(row, column)
  return value !== null ? value !== 0 : text(row, column) === "true"
}

/** The row's id (every Kuma table has one). */
export const idOf = (row: KumaRow): number => num(row, "id") ?? 0

/** How messages name a record: `monitor 7 "Foo"`, `status page 1 "acme"`. */
export const recordName = (kind: string, row: KumaRow, label: string | null = null): string =>
  label === null ? `${kind} ${idOf(row)}` : `${kind} ${idOf(row)} ${JSON.stringify(label)}`

/** A record left out or a part of one, as the plan prints it. */
export const skip = (record: string, reason: string): SkippedRecord => ({ record, reason })

/** A JSON column, parsed; null when empty. Text that is not JSON fails, naming the record and column. */
export const jsonColumn = (record: string, row: KumaRow, column: string): Effect.Effect<unknown, ImportSourceError> => {
  const value = text(row, column)
  return value === null ? Effect.succeed(null) : Effect.try({
    try: () => JSON.parse(value) as unknown,
    catch: () => new ImportSourceError({ message: `${record}: ${column} is not JSON` })
  })
}

/** An instant as the API takes it: ISO 8601 UTC, whole seconds without `.000`. */
export const isoOf = (millis: number): string => new Date(millis).toISOString().replace(/\.000Z$/, "Z")

/**
 * A timestamp Kuma wrote itself (`created_date`, `YYYY-MM-DD HH:MM:SS`, always UTC) as ISO
 * 8601 UTC; null when it is not one.
 */
export const utcOfKuma = (value: string | null): string | null => {
  const match = value === null
    ? null
    : /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(?:Z|[+-]00:?00)?$/.exec(value.trim())
  if (match === null) return null
  const iso = `${match[1]}T${match[2]}Z`
  const time = Date.parse(iso)
  return Number.isNaN(time) || new Date(time).toISOString().slice(0, 16) !== iso.slice(0, 16) ? null : iso
}

/** A wall-clock time (Recurrence.ts's shape): what Kuma's maintenance columns hold, in the window's zone. */
export interface WallTime {
  readonly year: number
  readonly month: number // 0-11
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
}

/** `YYYY-MM-DD[ HH:MM[:SS]]` (or with `T`) as a wall time; null when it is not one. */
export const wallTimeOf = (value: string | null): WallTime | null => {
  const match = value === null
    ? null
    : /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?$/.exec(value.trim())
  if (match === null) return null
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map((part) =>
    part === undefined ? undefined : Number(part)
  )
  const wall = { year: year!, month: month! - 1, day: day!, hour, minute, second, millisecond: 0 }
  const probe = new Date(Date.UTC(wall.year, wall.month, wall.day, hour, minute, second))
  return probe.getUTCMonth() === wall.month && probe.getUTCDate() === wall.day && hour < 24 && minute < 60 &&
      second < 60
    ? wall
    : null
}

/**
 * `value` checked against the entry's schema, as it goes into the bundle (its encoded form), or
 * why the schema refuses it, in the API's words (`timeoutMs: must be …`).
 */
export const checkedEntry = <S extends Schema.Codec<unknown, unknown>>(
  schema: S,
  value: S["Encoded"]
): { readonly entry: S["Encoded"] } | { readonly problem: string } => {
  const exit = Schema.decodeUnknownExit(schema)(value)
  if (Exit.isSuccess(exit)) return { entry: value }
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
  if (!Schema.isSchemaError(error)) return { problem: "is refused by this service's schema" }
  const issues = fieldIssues(error.issue).map((issue) =>
    issue.path.length === 0 ? issue.message : `${pathWords(issue.path)}: ${issue.message}`
  )
  return { problem: issues.length === 0 ? error.message : issues.join("; ") }
}
