/** The `tcp` check against a real node:net listener on loopback. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { parseTcpTarget, tcpCheck } from "../../probes/checks/tcp.js"
import { closedPort, tcpServer } from "../support/Servers.js"

describe("tcp check", () => {
  it.effect("connects to tcp://host:port and host:port and reports the connect time", () =>
    Effect.gen(function*() {
      let accepted = 0
      const target = yield* tcpServer((socket) => {
        accepted++
        socket.end()
      })
      const withScheme = yield* tcpCheck({ url: `tcp://127.0.0.1:${target.port}`, timeoutMs: 2000 })
      const bare = yield* tcpCheck({ url: `localhost:${target.port}`, timeoutMs: 2000 })
      expect(withScheme).toMatchObject({ ok: true, error: null, statusCode: null, sslDaysLeft: null })
      expect(withScheme.timings.dnsMs).toBeNull()
      expect(withScheme.timings.connectMs).toBeGreaterThanOrEqual(0)
      expect(bare).toMatchObject({ ok: true, error: null })
      expect(bare.timings.dnsMs).toBeGreaterThanOrEqual(0)
      expect(bare.durationMs).toBeGreaterThanOrEqual(bare.timings.connectMs!)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(accepted).toBe(2)
    }))

  it.live("fails on a closed port and on a target that is not host:port", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const refused = yield* tcpCheck({ url: `tcp://127.0.0.1:${port}`, timeoutMs: 2000 })
      expect(refused.ok).toBe(false)
      expect(refused.error).toContain("ECONNREFUSED")
      expect(refused.timings.connectMs).toBeNull()
      const invalid = yield* tcpCheck({ url: "http://127.0.0.1/", timeoutMs: 2000 })
      expect(invalid.ok).toBe(false)
      expect(invalid.error).toContain("invalid TCP target")
    }))

  it("parses the target forms", () => {
    expect(parseTcpTarget("tcp://db.internal:5432")).toEqual({ host: "db.internal", port: 5432 })
    expect(parseTcpTarget("db.internal:5432")).toEqual({ host: "db.internal", port: 5432 })
    expect(parseTcpTarget("[::1]:6379")).toEqual({ host: "::1", port: 6379 })
    expect(parseTcpTarget("db.internal")).toBeUndefined()
    expect(parseTcpTarget("db.internal:70000")).toBeUndefined()
  })
})
