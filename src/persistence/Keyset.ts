/**
 * Keyset pagination (docs/api.md, "Pagination and ordering"): a page is the `limit` rows that
 * follow the cursor's row in the list's order, found by comparing sort keys rather than by
 * counting an offset, so rows inserted or deleted meanwhile never shift a page and a deep page
 * costs what the first does.
 *
 * A cursor is base64url of `{ l, k }`: the list it belongs to and the last row's sort key as
 * the database gives it (timestamps to the microsecond, so no two rows are mistaken for one).
 * Its values reach SQL only after they are checked against the key's types, so a forged
 * cursor is a 400, never a failed query.
 */
import { Effect } from "effect"
import type { SqlClient, SqlError, Statement } from "effect/sql"

import { BadRequest } from "../domain/Errors.js"
import type { Page, PageRequest } from "../domain/Page.js"

/** The SQL type of a sort key's part, which its cursor value is checked against and cast to. */
export type KeyType = "timestamptz" | "integer" | "text" | "boolean"

/** One part of a list's order: an expression over the query's columns, its type and direction. */
export interface SortKey {
  readonly sql: string
  readonly type: KeyType
  readonly descending?: boolean
}

/** A list's order: its name (cursors of one list do not fit another) and its sort key, unique per row. */
export interface Keyset {
  readonly list: string
  readonly keys: ReadonlyArray<SortKey>
}

/** A timestamp as PostgreSQL writes it in JSON (`2026-11-29T13:31:31.123456+00:00`). */
const timestampText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/

const fitsType = (type: KeyType, value: unknown): boolean => {
  switch (type) {
    case "timestamptz":
      return typeof value === "string" && timestampText.test(value) && !Number.isNaN(Date.parse(value))
    case "integer":
      return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 2_147_483_647
    case "text":
      // No NUL and no lone surrogate: PostgreSQL refuses both in text.
      return typeof value === "string" && value.length <= 1000 && !value.includes("\u0000") &&
        !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)
    case "boolean":
      return typeof value === "boolean"
  }
}

const notOurs = new BadRequest({
  message: "The cursor is not one this list gave: start again without it",
  issues: [{ path: ["cursor"], message: "is not a cursor of this list" }]
})

export const encodeCursor = (keyset: Keyset, key: ReadonlyArray<unknown>): string =>
  Buffer.from(JSON.stringify({ l: keyset.list, k: key }), "utf8").toString("base64url")

/** The sort key a cursor names, checked against the list's key types. */
export const decodeCursor = (keyset: Keyset, cursor: string): Effect.Effect<ReadonlyArray<unknown>, BadRequest> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return Effect.fail(notOurs)
  }
  if (typeof parsed !== "object" || parsed === null) return Effect.fail(notOurs)
  const { k, l } = parsed as { readonly l?: unknown; readonly k?: unknown }
  return l === keyset.list && Array.isArray(k) && k.length === keyset.keys.length &&
      keyset.keys.every((key, i) => fitsType(key.type, k[i]))
    ? Effect.succeed(k)
    : Effect.fail(notOurs)
}

/** What a page's query is made of; the query selects `pageKey` beside its columns. */
export interface PageParts {
  /** The rows after the cursor's (`true` on the first page): put it in the `where` clause. */
  readonly after: Statement.Fragment
  readonly orderBy: Statement.Fragment
  /** One row more than the page holds, which tells whether another page follows. */
  readonly limit: Statement.Fragment
  /** `json_build_array(<sort key>)::text as page_key`, the cursor of a row. */
  readonly pageKey: Statement.Fragment
}

/**
 * Rows after `key` in the order: `(k1, k2) > (v1, v2)` when the parts go the same way (an
 * index serves it), else the expanded form `k1 > v1 or (k1 = v1 and k2 < v2) …`.
 */
const afterKey = (sql: SqlClient.SqlClient, keys: ReadonlyArray<SortKey>, key: ReadonlyArray<unknown>) => {
  const value = (i: number) => sql`${key[i] as string | number | boolean}::${sql.literal(keys[i]!.type)}`
  const column = (i: number) => sql.literal(keys[i]!.sql)
  const sameWay = keys.every((k) => (k.descending ?? false) === (keys[0]!.descending ?? false))
  if (sameWay) {
    const op = sql.literal(keys[0]!.descending ? "<" : ">")
    return sql`(${sql.csv(keys.map((_, i) => column(i)))}) ${op} (${sql.csv(keys.map((_, i) => value(i)))})`
  }
  return sql.or(keys.map((k, i) =>
    sql.and([
      ...keys.slice(0, i).map((_, j) => sql`${column(j)} = ${value(j)}`),
      sql`${column(i)} ${sql.literal(k.descending ? "<" : ">")} ${value(i)}`
    ])
  ))
}

/**
 * Reads one page: `query` builds the statement from the parts, `decode` turns its rows into
 * items (rowsOf(...).all). A cursor that is not this list's is 400.
 */
export const readPage = <A, E, R>(
  sql: SqlClient.SqlClient,
  keyset: Keyset,
  request: PageRequest,
  query: (parts: PageParts) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>,
  decode: (rows: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) => Effect.Effect<ReadonlyArray<A>, E, R>
): Effect.Effect<Page<A>, BadRequest | E, R> =>
  Effect.gen(function*() {
    const after = request.cursor === undefined ? undefined : yield* decodeCursor(keyset, request.cursor)
    const parts: PageParts = {
      after: after === undefined ? sql.literal("true") : afterKey(sql, keyset.keys, after),
      orderBy: sql.literal(
        `order by ${keyset.keys.map((key) => `${key.sql} ${key.descending ? "desc" : "asc"}`).join(", ")}`
      ),
      limit: sql`limit ${request.limit + 1}`,
      pageKey: sql.literal(`json_build_array(${keyset.keys.map((key) => key.sql).join(", ")})::text as page_key`)
    }
    let raw: ReadonlyArray<unknown> = []
    const items = yield* decode(Effect.tap(query(parts), (rows) =>
      Effect.sync(() => {
        raw = rows
      })))
    if (items.length <= request.limit) return { items, next: undefined }
    const last = raw[request.limit - 1] as { readonly page_key?: unknown; readonly pageKey?: unknown }
    const key = JSON.parse(String(last.page_key ?? last.pageKey)) as ReadonlyArray<unknown>
    return { items: items.slice(0, request.limit), next: encodeCursor(keyset, key) }
  })
