/**
 * The embedded PGlite shared by the whole connection pool (`EmbeddedSessions`): statements of
 * many connections, and transactions among them, each run whole and on their own.
 */
import { mkdtemp, rm } from "node:fs/promises"
import net from "node:net"
import os from "node:os"
import * as Path from "node:path"

import { describe, expect, it, layer } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"

import { Database } from "../../src/persistence/Database.js"
import { serveEmbedded, serveOnSocket } from "../../src/persistence/EmbeddedServer.js"
import { squatter as squatterOf, startupMessage } from "../support/EmbeddedAddress.js"
import { minimumLogLevel } from "../support/Logs.js"
import { embeddedConfig } from "../support/TestDatabase.js"

const Embedded = Database.pipe(Layer.provide(embeddedConfig()), Layer.provide(minimumLogLevel("Warn")))

layer(Embedded, { excludeTestServices: true, timeout: 60_000 })("embedded PGlite sessions", (it) => {
  it.effect("concurrent statements next to transactions all succeed, each with its own parameters", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`create table embedded_a (n integer)`
      const transactions = Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) =>
          sql.withTransaction(
            Effect.andThen(sql`insert into embedded_a values (${i})`, sql`select count(*) from embedded_a`)
          ),
        { concurrency: 2, discard: true }
      )
      const statements = Effect.forEach(
        Array.from({ length: 500 }, (_, i) => i),
        (i) =>
          Effect.map(
            sql<{ n: number; s: string }>`select ${i}::integer + 1 as n, ${`text ${i}`} as s`,
            (rows) => rows[0]
          ),
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
            Effect.andThen(sql`insert into embedded_b values ('rolled back', ${i})`, Effect.fail("undo" as const))
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

  it.effect("runs with the settings that keep its memory down: a small page cache, WAL segments not zero-filled", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const settings = yield* sql<{ name: string; setting: string; unit: string | null }>`
        select name, setting, unit from pg_settings
        where name in ('shared_buffers', 'wal_init_zero') order by name`
      expect(settings).toEqual([
        { name: "shared_buffers", setting: "2048", unit: "8kB" },
        { name: "wal_init_zero", setting: "off", unit: null }
      ])
    }))
})

/**
 * A PGlite served as the service serves it on Windows (loopback TCP), for tests that speak the
 * wire protocol themselves.
 */
const servedPGlite = async (limits: { maxConnections: number; handshakeMillis: number }) => {
  const db = await PGlite.create()
  const password = "served-pglite-password"
  const server = await serveEmbedded({ host: "127.0.0.1", port: 0 }, { db, password, ...limits })
  const port = server.port
  const client = async () => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres", password })
    client.on("error", () => {}) // a connection the test cuts reports its own end
    await client.connect()
    return client
  }
  /** A connection that sends protocol messages as the test writes them, each in a chunk of its own. */
  const rawConnection = async (beforePassword = () => {}) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.setNoDelay(true)
    socket.on("error", () => {})
    await new Promise((resume) => socket.once("connect", resume))
    let received = Buffer.alloc(0)
    socket.on("data", (data) => (received = Buffer.concat([received, data])))
    const readyForQuery = () => {
      let count = 0
      for (let at = received.indexOf(0x5a); at !== -1; at = received.indexOf(0x5a, at + 1)) {
        if (received.readInt32BE(at + 1) === 5) count++
      }
      return count
    }
    const send = (type: string, body: Buffer = Buffer.alloc(0)) => {
      const message = Buffer.alloc(5 + body.length)
      message[0] = type.charCodeAt(0)
      message.writeInt32BE(4 + body.length, 1)
      body.copy(message, 5)
      socket.write(message)
    }
    socket.write(startupMessage)
    // AuthenticationCleartextPassword, answered with the password.
    await until(() => received.length >= 9)
    beforePassword()
    send("p", Buffer.from(`${password}\0`))
    await until(() => readyForQuery() === 1)
    return { socket, send, readyForQuery }
  }
  /** A connection that never gives the password. */
  const squatter = (sendStartup: boolean) => squatterOf(() => net.connect(port, "127.0.0.1"), sendStartup)
  const stop = async () => {
    await server.stop()
    await db.close()
  }
  return { db, client, rawConnection, squatter, stop }
}

/** Runs `test` against a freshly served PGlite, stopped afterwards whatever happens. */
const withServedPGlite = async (
  test: (served: Awaited<ReturnType<typeof servedPGlite>>) => Promise<void>,
  limits = { maxConnections: 8, handshakeMillis: 60_000 }
) => {
  const served = await servedPGlite(limits)
  try {
    await test(served)
  } finally {
    await served.stop()
  }
}

const until = async (condition: () => boolean) => {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error("gave up waiting")
    await new Promise((resume) => setTimeout(resume, 10))
  }
}
const settled = (promise: Promise<unknown>) => {
  let done = false
  promise.then(() => (done = true), () => (done = true))
  return () => done
}
const pause = (millis: number) => new Promise((resume) => setTimeout(resume, millis))

describe("embedded PGlite sessions, connection by connection", () => {
  it(
    "a connection that drops inside its transaction leaves nothing behind and holds up no one",
    () =>
      withServedPGlite(async (served) => {
        const dropped = await served.client()
        const other = await served.client()
        await other.query("create table embedded_c (n integer)")
        await dropped.query("begin")
        await dropped.query("insert into embedded_c values (1)")
        // The other connection waits while the transaction is open...
        const waiting = other.query("insert into embedded_c values (2)")
        const answered = settled(waiting)
        await pause(100)
        expect(answered()).toBe(false) // ...and goes on once the holder's connection is cut without a word.
        ;(dropped as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
        await waiting
        expect((await other.query("select n from embedded_c order by n")).rows).toEqual([{ n: 2 }])
        expect(served.db.isInTransaction()).toBe(false)
        await other.end()
      }),
    30_000
  )

  it(
    "a statement whose messages arrive one by one, while another connection's transaction is open, runs whole after it",
    () =>
      withServedPGlite(async (served) => {
        const holder = await served.client()
        const raw = await served.rawConnection()
        await holder.query("begin")
        raw.send("P", Buffer.from("\0select 7 as x\0\0\0"))
        await pause(5)
        raw.send("B", Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]))
        await pause(5)
        raw.send("E", Buffer.from([0, 0, 0, 0, 0]))
        await pause(5)
        raw.send("S")
        await pause(20)
        expect(raw.readyForQuery()).toBe(1)
        await holder.query("commit")
        await until(() => raw.readyForQuery() === 2)
        expect((await holder.query("select 1 as one")).rows).toEqual([{ one: 1 }])
        raw.socket.destroy()
        await holder.end()
      }),
    30_000
  )

  it(
    "a connection dropped in the middle of an exchange leaves no half-done statement to the next",
    () =>
      withServedPGlite(async (served) => {
        const raw = await served.rawConnection()
        // A Parse that fails, and no Sync: the session is left waiting for the end of the exchange.
        raw.send("P", Buffer.from("\0select from nowhere_at_all\0\0\0"))
        await pause(20)
        raw.socket.destroy()
        const next = await served.client()
        expect((await next.query("select $1::integer as x", [42])).rows).toEqual([{ x: 42 }])
        await next.end()
      }),
    30_000
  )

  it(
    "after a connection fails, the messages it still had on their way never run",
    () =>
      withServedPGlite(async (served) => {
        const setup = await served.client()
        await setup.query("create table embedded_d (n integer)")
        // Stands for a failure of the session itself (not an SQL error, which is an answer).
        const execute = served.db.execProtocolRawStream.bind(served.db)
        served.db.execProtocolRawStream = async (message, options) => {
          if (Buffer.from(message).includes("FAIL HERE")) {
            await pause(30)
            throw new Error("the session failed")
          }
          return execute(message, options)
        }
        const raw = await served.rawConnection()
        const query = (text: string) => Buffer.from(`${text}\0`)
        raw.send("Q", query("select 'FAIL HERE'"))
        await pause(5)
        raw.send("Q", query("begin; insert into embedded_d values (99)"))
        await pause(2)
        await setup.query("insert into embedded_d values (2)")
        expect(served.db.isInTransaction()).toBe(false)
        const after = await served.client()
        expect((await after.query("select n from embedded_d order by n")).rows).toEqual([{ n: 2 }])
        await Promise.all([setup.end(), after.end()])
      }),
    30_000
  )

  it(
    "connections that never give the password take no slot, and are closed at the handshake deadline",
    () =>
      withServedPGlite(async (served) => {
        const squatters = await Promise.all(Array.from({ length: 32 }, (_, i) => served.squatter(i % 2 === 0)))
        // Both slots are there for connections that sign in, and only for them.
        const first = await served.client()
        const second = await served.client()
        await expect(served.client()).rejects.toThrow("sorry, too many clients already")
        await until(() => squatters.every((squatter) => squatter.closed()))
        // Connections that signed in outlive the deadline.
        expect((await first.query("select 1 as one")).rows).toEqual([{ one: 1 }])
        expect((await second.query("select 2 as two")).rows).toEqual([{ two: 2 }])
        await Promise.all([first.end(), second.end()])
      }, { maxConnections: 2, handshakeMillis: 500 }),
    30_000
  )

  it(
    "a connection whose handshake a stalled event loop held past the deadline is not closed for it",
    () =>
      withServedPGlite(async (served) => {
        // As a long statement on PGlite (this thread) would: the deadline comes while the loop is
        // stalled, and the password is there to read as soon as it goes on.
        const raw = await served.rawConnection(() => {
          for (const until = Date.now() + 1_500; Date.now() < until;);
        })
        raw.send("Q", Buffer.from("select 1\0"))
        await until(() => raw.readyForQuery() === 2)
        raw.socket.destroy()
      }, { maxConnections: 2, handshakeMillis: 500 }),
    30_000
  )

  it(
    "a connection that sends more than a sign-in takes before giving the password is closed at once",
    () =>
      withServedPGlite(async (served) => {
        const flooder = await served.squatter(false)
        // A message declaring 1 GB, then 64 KB of it: pglite-socket would buffer it all.
        const header = Buffer.alloc(8)
        header.writeInt32BE(1 << 30, 0)
        header.writeInt32BE(196608, 4)
        flooder.socket.write(Buffer.concat([header, Buffer.alloc(64 * 1024)]))
        await until(flooder.closed)
        const client = await served.client()
        expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }])
        await client.end()
      }),
    30_000
  )
})

describe("embedded PGlite on its Unix socket", () => {
  it(
    "a second process on the same DATA_DIR is refused while the first serves it",
    async () => {
      const dataDir = await mkdtemp(Path.join(os.tmpdir(), "sps-embedded-"))
      const db = await PGlite.create()
      const options = { db, password: "p", maxConnections: 2, handshakeMillis: 2_000 }
      const first = await serveOnSocket(dataDir, options)
      try {
        await expect(serveOnSocket(dataDir, options)).rejects.toThrow(/Another process serves/)
        // The first one's socket is still there and answers.
        const client = new pg.Client({ host: first.host, port: first.port, user: "postgres", password: "p" })
        await client.connect()
        expect((await client.query("select 2 as two")).rows).toEqual([{ two: 2 }])
        await client.end()
      } finally {
        await first.stop()
        await db.close()
      }
      // Stopped, its socket no longer answers: the next start serves the same DATA_DIR.
      const again = await PGlite.create()
      const next = await serveOnSocket(dataDir, { ...options, db: again })
      expect(next.host).toBe(first.host)
      await next.stop()
      await again.close()
      await rm(dataDir, { recursive: true, force: true })
    },
    30_000
  )
})
