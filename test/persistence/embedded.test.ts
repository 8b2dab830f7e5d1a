/**
 * The embedded PGlite shared by the whole connection pool (`EmbeddedSessions`): statements of
 * many connections, and transactions among them, each run whole and on their own.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Logger, LogLevel } from "effect"
import pg from "pg"
import { Database } from "../../src/persistence/Database.js"
import { shareSessionsSafely } from "../../src/persistence/EmbeddedSessions.js"
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

describe("embedded PGlite sessions, connection by connection", () => {
  it("a connection that drops inside its transaction leaves nothing behind and holds up no one", async () => {
    const db = await PGlite.create()
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 })
    shareSessionsSafely(server, db)
    await server.start()
    const port = Number(server.getServerConn().split(":")[1])
    const connect = async () => {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" })
      client.on("error", () => {}) // the dropped connection reports its own end
      await client.connect()
      return client
    }
    try {
      const dropped = await connect()
      const other = await connect()
      await other.query("create table embedded_c (n integer)")
      await dropped.query("begin")
      await dropped.query("insert into embedded_c values (1)")
      // The other connection waits while the transaction is open...
      const waiting = other.query("insert into embedded_c values (2)")
      // ...and goes on once the holder's connection is cut without a word.
      ;(dropped as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
      await waiting
      const rows = await other.query("select n from embedded_c order by n")
      expect(rows.rows).toEqual([{ n: 2 }])
      expect(db.isInTransaction()).toBe(false)
      await other.end()
    } finally {
      await server.stop()
      await db.close()
    }
  }, 30_000)
})
