/**
 * The embedded database admits only connections that give the password the service made at
 * start (where it is served on loopback TCP, every local user reaches it). The service itself
 * works through it as before.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"

import { Database } from "../../src/persistence/Database.js"
import { type EmbeddedAddress, embeddedAddress } from "../support/EmbeddedAddress.js"
import { replaceDefaultLogger } from "../support/Logs.js"
import { embeddedConfig } from "../support/TestDatabase.js"

/** The service's embedded database, and where it listens. */
const embeddedService = Effect.gen(function*() {
  const lines: Array<string> = []
  const capture = Logger.make(({ message }) => lines.push(String(message)))
  const context = yield* Layer.build(
    Database.pipe(Layer.provide(embeddedConfig()), Layer.provide(replaceDefaultLogger(capture)))
  )
  return { sql: Context.get(context, SqlClient.SqlClient), address: embeddedAddress(lines) }
})

/**
 * A connection that sends a startup message and then, instead of a password, a query: what the
 * server sent back, and whether it closed the connection.
 */
const withoutPassword = (address: EmbeddedAddress) =>
  Effect.promise(() =>
    new Promise<{ received: Buffer; closed: boolean }>((resolve) => {
      const socket = address.connect()
      let received = Buffer.alloc(0)
      const finish = (closed: boolean) => {
        clearTimeout(deadline)
        socket.destroy()
        resolve({ received, closed })
      }
      // An open server answers the query (ReadyForQuery after it); this one closes the connection.
      const deadline = setTimeout(() => finish(false), 5000)
      socket.on("error", () => {})
      socket.on("close", () => finish(true))
      socket.on("data", (data) => {
        const first = received.length === 0
        received = Buffer.concat([received, data])
        if (first) socket.write(query("select 1"))
      })
      const parameters = Buffer.from("user\0postgres\0database\0postgres\0\0")
      const startup = Buffer.alloc(8 + parameters.length)
      startup.writeInt32BE(8 + parameters.length, 0)
      startup.writeInt32BE(196608, 4)
      parameters.copy(startup, 8)
      socket.on("connect", () => socket.write(startup))
    })
  )

const query = (text: string) => {
  const body = Buffer.from(`${text}\0`)
  const message = Buffer.alloc(5 + body.length)
  message[0] = 0x51
  message.writeInt32BE(4 + body.length, 1)
  body.copy(message, 5)
  return message
}

/** A pg client's connection attempt: "connected", or the error it got. */
const connectWith = ({ host, port }: EmbeddedAddress, password: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ host, port, user: "postgres", database: "postgres", password })
    client.on("error", () => {})
    try {
      await client.connect()
      await client.end()
      return "connected"
    } catch (error) {
      return (error as Error).message
    }
  })

describe("the embedded database's socket", () => {
  it.live(
    "refuses a connection without the password, or with a wrong one, while the service works",
    () =>
      Effect.gen(function*() {
        const { address, sql } = yield* embeddedService

        const { closed, received } = yield* withoutPassword(address)
        // AuthenticationCleartextPassword (R, 3), never AuthenticationOk (R, 0) ...
        expect([String.fromCharCode(received[0]!), received.readInt32BE(5)]).toEqual(["R", 3])
        // ... then the query is refused, unanswered, and the connection closed.
        expect(received.includes(Buffer.from("C28000\0"))).toBe(true)
        expect(received.includes(Buffer.from("Z\0\0\0\x05"))).toBe(false)
        expect(closed).toBe(true)

        expect(yield* connectWith(address, "not-the-password")).toBe("password authentication failed")

        // The service's own connections know the password.
        expect(yield* sql<{ one: number }>`select 1 as one`).toEqual([{ one: 1 }])
      }).pipe(Effect.scoped),
    60_000
  )
})
