/**
 * The `redis` check against the machine's Redis (127.0.0.1:6379): PING with no login, AUTH as
 * an ACL user made for the test (removed after), a wrong password, a database out of range, a
 * closed port, a server that is not Redis, and OUTBOUND_DENY. Loaded through runCheck, as a
 * probe loads it.
 */
import { randomBytes } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Redis } from "ioredis"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { closedPort, tcpServer } from "../support/Servers.js"

const job = (url: string, password: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "redis",
  url,
  timeoutMs: 3000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password
})

/** An ACL user allowed to PING and SELECT, with a password; removed when the test ends. */
const aclUser = Effect.acquireRelease(
  Effect.promise(async () => {
    const admin = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true })
    await admin.connect()
    const name = `e44-check-${randomBytes(4).toString("hex")}`
    const password = `pw-${randomBytes(8).toString("hex")}`
    await admin.call("ACL", "SETUSER", name, "on", `>${password}`, "+ping", "+select", "allkeys")
    return { admin, name, password }
  }),
  ({ admin, name }) => Effect.promise(() => admin.call("ACL", "DELUSER", name).then(() => admin.quit()))
)

describe("redis check", () => {
  it.live("passes on PING without a login and with an ACL user's password, on database 0 and 3", () =>
    Effect.gen(function*() {
      const user = yield* aclUser
      const open = yield* runCheck(job("redis://127.0.0.1:6379"))
      expect(open).toMatchObject({ ok: true, error: null, statusCode: null })
      expect(open.timings.connectMs).toBeGreaterThanOrEqual(0)
      expect(open.timings.firstByteMs).toBeGreaterThanOrEqual(0)
      const loggedIn = yield* runCheck(job(`redis://${user.name}@127.0.0.1:6379/3`, user.password))
      expect(loggedIn).toMatchObject({ ok: true, error: null })
      const named = yield* runCheck(job("redis://localhost/0"))
      expect(named.ok).toBe(true)
      expect(named.timings.dnsMs).toBeGreaterThanOrEqual(0)
    }))

  it.live("fails in fixed words: wrong password, missing database, closed port, not Redis", () =>
    Effect.gen(function*() {
      const user = yield* aclUser
      const wrong = yield* runCheck(job(`redis://${user.name}@127.0.0.1:6379`, "not-the-password"))
      expect(wrong).toMatchObject({ ok: false, error: "authentication failed" })
      // A database beyond the server's count (16 by default).
      const missing = yield* runCheck(job(`redis://${user.name}@127.0.0.1:6379/99999`, user.password))
      expect(missing).toMatchObject({ ok: false, error: "database 99999 does not exist" })
      const port = yield* closedPort
      const refused = yield* runCheck(job(`redis://127.0.0.1:${port}`))
      expect(refused).toMatchObject({ ok: false, error: `connection refused by 127.0.0.1:${port}` })
      const other = yield* tcpServer((socket) =>
        socket.once("data", () => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"))
      )
      const notRedis = yield* runCheck(job(`redis://127.0.0.1:${other.port}`, "secret-pw"))
      expect(notRedis).toMatchObject({ ok: false, error: "not a Redis server (unexpected reply)" })
    }))

  it.live("never repeats what a server echoes of the password", () =>
    Effect.gen(function*() {
      // A server that does not know AUTH quotes its arguments back, as Redis does for unknown commands.
      const echoing = yield* tcpServer((socket) =>
        socket.once("data", (data) => {
          const args = data.toString("latin1").split("\r\n").filter((line) => !/^[*$]/.test(line) && line !== "")
          socket.end(
            `-ERR unknown command '${args[0]}', with args beginning with: ${
              args.slice(1).map((a) => `'${a}'`).join(" ")
            }\r\n`
          )
        })
      )
      const outcome = yield* runCheck(job(`redis://probe@127.0.0.1:${echoing.port}`, "pw-do-not-echo"))
      expect(outcome).toMatchObject({ ok: false, error: "AUTH refused (ERR)" })
    }))

  it.live("drops an error that would hold the password whole: a masked place would tell what it is", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      // The password is the host's address: "connection refused by ********:port" would give it away.
      const outcome = yield* runCheck(job(`redis://127.0.0.1:${port}`, "127.0.0.1"))
      expect(outcome).toMatchObject({
        ok: false,
        error: "the check failed; its error is not shown, as it held the monitor's password"
      })
    }))

  it.live("never connects to an address of OUTBOUND_DENY", () =>
    Effect.gen(function*() {
      let accepted = 0
      const target = yield* tcpServer((socket) => {
        accepted++
        socket.end()
      })
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const outcome = yield* runCheck(job(`redis://127.0.0.1:${target.port}`), { outbound })
      expect(outcome).toMatchObject({ ok: false, error: "connection to 127.0.0.1 refused by OUTBOUND_DENY" })
      const named = yield* runCheck(job(`redis://localhost:${target.port}`), { outbound })
      expect(named.ok).toBe(false)
      expect(named.error).toContain("refused by OUTBOUND_DENY")
      expect(accepted).toBe(0)
    }))
})
