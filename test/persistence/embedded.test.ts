/**
 * The embedded PGlite shared by the whole connection pool (`EmbeddedSessions`): statements of
 * many connections, and transactions among them, each run whole and on their own.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Database } from "../../src/persistence/Database.js"
import { embeddedConfig } from "../support/TestDatabase.js"

const Embedded = Database.pipe(Layer.provide(embeddedConfig()), Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)))

layer(Embedded, { excludeTestServices: true, timeout: 60_000 })("embedded PGlite sessions", (it) => {
  it.effect("concurrent statements next to transactions all succeed, each with its own parameters", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`create table embedded_a (n integer)`
      const transactions = Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => sql.withTransaction(Effect.zipRight(sql`insert into embedded_a values (${i})`, sql`select count(*) from embedded_a`)),
        { concurrency: 2, discard: true }
      )
      const statements = Effect.forEach(
        Array.from({ length: 500 }, (_, i) => i),
        (i) => Effect.map(sql<{ n: number; s: string }>`select ${i}::integer + 1 as n, ${`text ${i}`} as s`, (rows) => rows[0]),
        { concurrency: 8 }
      )
      const [, answers] = yield* Effect.all([transactions, statements], { concurrency: 2 })
      expect(answers).toEqual(Array.from({ length: 500 }, (_, i) => ({ n: i + 1, s: `text ${i}` })))
      expect((yield* sql<{ count: number }>`select count(*)::integer as count from embedded_a`)[0]!.count).toBe(100)
    }))

  it.effect("a transaction that rolls back takes back only its own writes", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`create table embedded_b (who text, n integer)`
      const rolledBack = Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) =>
          sql.withTransaction(
            Effect.zipRight(sql`insert into embedded_b values ('rolled back', ${i})`, Effect.fail("undo" as const))
          ).pipe(Effect.flip),
        { concurrency: 2, discard: true }
      )
      const written = Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => sql`insert into embedded_b values ('kept', ${i})`,
        { concurrency: 6, discard: true }
      )
      yield* Effect.all([rolledBack, written], { concurrency: 2 })
      const counts = yield* sql<{ who: string; count: number }>`
        select who, count(*)::integer as count from embedded_b group by who order by who`
      expect(counts).toEqual([{ who: "kept", count: 200 }])
    }))
})
