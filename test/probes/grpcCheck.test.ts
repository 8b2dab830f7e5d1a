/**
 * The `grpc` check against a real `@grpc/grpc-js` server on loopback serving the standard
 * health service (grpc.health.v1.Health/Check), plaintext and TLS (a private CA given as the
 * probe's extra CA): SERVING passes; NOT_SERVING, an unknown service, a server without the
 * health service, a closed port and an untrusted certificate fail. Loaded through runCheck, as a
 * probe loads it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { makeCa, makeLeaf } from "../support/Certificates.js"
import { closedPort } from "../support/Servers.js"
import { serve } from "./support/grpcHealthServer.js"

const job = (url: string, grpcService: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "grpc",
  url,
  timeoutMs: 5000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  grpcService
})

describe("grpc check", () => {
  it.live("passes on SERVING, for the server and for a named service", () =>
    Effect.gen(function*() {
      const { port } = yield* serve({ health: true })
      const server = yield* runCheck(job(`grpc://127.0.0.1:${port}`))
      expect(server).toMatchObject({ ok: true, error: null, statusCode: null })
      const named = yield* runCheck(job(`grpc://localhost:${port}`, "shop.Cart"))
      expect(named).toMatchObject({ ok: true, error: null })
    }))

  it.live("fails in fixed words: NOT_SERVING, an unknown service, no health service, a closed port", () =>
    Effect.gen(function*() {
      const { port } = yield* serve({ health: true })
      const down = yield* runCheck(job(`grpc://127.0.0.1:${port}`, "shop.Payments"))
      expect(down).toMatchObject({ ok: false, error: "health status NOT_SERVING, not SERVING" })
      const unknown = yield* runCheck(job(`grpc://127.0.0.1:${port}`, "shop.Nothing"))
      expect(unknown).toMatchObject({
        ok: false,
        error: "the health service does not know \"shop.Nothing\" (NOT_FOUND)"
      })
      const bare = yield* serve({ health: false })
      const unimplemented = yield* runCheck(job(`grpc://127.0.0.1:${bare.port}`))
      expect(unimplemented).toMatchObject({
        ok: false,
        error: "the server has no health service (grpc.health.v1.Health: UNIMPLEMENTED)"
      })
      const closed = yield* closedPort
      const refused = yield* runCheck(job(`grpc://127.0.0.1:${closed}`))
      expect(refused.ok).toBe(false)
      expect(refused.error).toMatch(/^unavailable \(UNAVAILABLE\): .*ECONNREFUSED/)
    }))

  it.live("over TLS trusts the probe's extra CA and checks the host name; an unknown CA fails", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(() => makeCa())
      const leaf = yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 30 }))
      const { port } = yield* serve({ health: true, tls: leaf })
      const trusted = yield* runCheck(job(`grpcs://localhost:${port}`), { extraCa: ca.cert })
      expect(trusted).toMatchObject({ ok: true, error: null })
      const untrusted = yield* runCheck(job(`grpcs://localhost:${port}`))
      expect(untrusted.ok).toBe(false)
      expect(untrusted.error).toMatch(/^unavailable \(UNAVAILABLE\)/)
    }))

  it.live("never connects to an address of OUTBOUND_DENY", () =>
    Effect.gen(function*() {
      const { port } = yield* serve({ health: true })
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const outcome = yield* runCheck(job(`grpc://localhost:${port}`), { outbound })
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toContain("refused by OUTBOUND_DENY")
    }))
})
