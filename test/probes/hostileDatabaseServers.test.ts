/**
 * A server at a `postgres` or `mysql` monitor's target that answers with one endless message:
 * the drivers would keep it all in memory until the time-out; the check stops reading at 1 MB and
 * fails at once, so a hostile target cannot fill the probe's memory (the service's, in the
 * embedded default). Real TCP servers on loopback, speaking each protocol's framing.
 */
import { createServer, type Server } from "node:net"

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"

/**
 * A server that sends `head` (after the client's first bytes when `clientFirst`, as PostgreSQL's
 * client speaks first), then zeros in 64 kB chunks, up to 8 MB or until the client goes.
 */
const endlessServer = (head: Buffer, clientFirst: boolean) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ server: Server; port: number }>((resolve) => {
        const server = createServer((socket) => {
          socket.on("error", () => undefined)
          const start = () => {
            socket.write(head)
            const chunk = Buffer.alloc(64 * 1024)
            let sent = 0
            const pump = () => {
              while (sent < 8 * 1024 * 1024 && !socket.destroyed) {
                sent += chunk.length
                if (!socket.write(chunk)) return void socket.once("drain", pump)
              }
            }
            pump()
          }
          if (clientFirst) socket.once("data", start)
          else start()
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resolve({ server, port: typeof address === "object" && address ? address.port : 0 })
        })
      })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

const job = (type: "postgres" | "mysql", url: string): CheckDefinition => ({
  monitorId: "m",
  type,
  url,
  timeoutMs: 20_000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password: "secret-password"
})

describe("a hostile database server", () => {
  it.live("postgres: an authentication message announced 1 GB long fails at 1 MB, not at the time-out", () =>
    Effect.gen(function*() {
      // After the startup message: 'R' (authentication) with a length of 1 GB, then its endless body.
      const header = Buffer.alloc(5)
      header.write("R", 0)
      header.writeInt32BE(1024 * 1024 * 1024, 1)
      const server = yield* endlessServer(header, true)
      const outcome = yield* runCheck(job("postgres", `postgres://monitor@127.0.0.1:${server.port}/app`))
      expect(outcome).toMatchObject({ ok: false, error: "the server sent more than 1 MB" })
      expect(outcome.durationMs).toBeLessThan(20_000)
    }))

  it.live("mysql: a greeting packet announced 16 MB long fails at 1 MB, not at the time-out", () =>
    Effect.gen(function*() {
      // A packet header: 3 bytes of length (the largest), the sequence number 0.
      const server = yield* endlessServer(Buffer.from([0xff, 0xff, 0xff, 0x00]), false)
      const outcome = yield* runCheck(job("mysql", `mysql://monitor@127.0.0.1:${server.port}/app`))
      expect(outcome).toMatchObject({ ok: false, error: "the server sent more than 1 MB" })
      expect(outcome.durationMs).toBeLessThan(20_000)
    }))
})
