/**
 * The `ssl_expiry` check against real TLS servers whose certificates are made in the test:
 * leaves signed by a private CA (trusted through the extra-CA option), self-signed, expired,
 * for another name, or close to expiry.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

import { sslExpiryCheck } from "../../probes/checks/sslExpiry.js"
import { makeCa, makeLeaf, type Pem, startHttpsServer } from "../support/Certificates.js"
import { tcpServer } from "../support/Servers.js"

const serve = (leaf: Pem) =>
  Effect.acquireRelease(Effect.promise(() => startHttpsServer(leaf)), (server) => Effect.promise(server.close))

const day = 24 * 60 * 60 * 1000

describe("ssl_expiry check", () => {
  it.live("passes on a valid chain and reports the days left, in each target form", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const server = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 90 })))
      for (const url of [`https://localhost:${server.port}/`, `localhost:${server.port}`, `127.0.0.1:${server.port}`]) {
        const outcome = yield* sslExpiryCheck({ url, timeoutMs: 3000 }, { extraCa: ca.cert })
        expect(outcome).toMatchObject({ ok: true, error: null, sslDaysLeft: 90, statusCode: null })
        expect(outcome.timings.tlsMs).toBeGreaterThan(0)
      }
    }).pipe(Effect.scoped))

  it.live("fails when the certificate expires within the threshold, which is configurable", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const server = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 10 })))
      const check = { url: `localhost:${server.port}`, timeoutMs: 3000 }
      const soon = yield* sslExpiryCheck(check, { extraCa: ca.cert })
      expect(soon).toMatchObject({ ok: false, sslDaysLeft: 10, error: "certificate expires in 10 days (threshold 14)" })
      const relaxed = yield* sslExpiryCheck(check, { extraCa: ca.cert, warningDays: 7 })
      expect(relaxed).toMatchObject({ ok: true, sslDaysLeft: 10 })
    }).pipe(Effect.scoped))

  it.effect("counts the days left from the clock (TestClock 20 days ahead)", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const server = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 30 })))
      yield* TestClock.setTime(Date.now() + 20 * day)
      const later = yield* sslExpiryCheck({ url: `localhost:${server.port}`, timeoutMs: 3000 }, { extraCa: ca.cert })
      expect(later).toMatchObject({ ok: false, sslDaysLeft: 10 })
    }))

  it.live("fails on an untrusted, expired or mismatched certificate and still reports the days left", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const selfSigned = yield* serve(yield* Effect.promise(() => makeLeaf({ daysLeft: 90 })))
      const expired = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: -3, notBeforeDaysAgo: 30 })))
      const otherName = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 90, name: "other.test" })))

      const untrusted = yield* sslExpiryCheck({ url: `localhost:${selfSigned.port}`, timeoutMs: 3000 }, {
        extraCa: ca.cert
      })
      expect(untrusted).toMatchObject({ ok: false, sslDaysLeft: 90 })
      expect(untrusted.error).toMatch(/^certificate not trusted: .*SELF_SIGNED/)

      const gone = yield* sslExpiryCheck({ url: `localhost:${expired.port}`, timeoutMs: 3000 }, { extraCa: ca.cert })
      expect(gone).toMatchObject({ ok: false, sslDaysLeft: -3, error: "certificate not trusted: CERT_HAS_EXPIRED" })

      const mismatch = yield* sslExpiryCheck({ url: `localhost:${otherName.port}`, timeoutMs: 3000 }, {
        extraCa: ca.cert
      })
      expect(mismatch).toMatchObject({ ok: false, sslDaysLeft: 90 })
      expect(mismatch.error).toContain("ERR_TLS_CERT_ALTNAME_INVALID")
    }).pipe(Effect.scoped))

  it.effect("times out on a server that never completes the handshake", () =>
    Effect.gen(function*() {
      const silent = yield* tcpServer(() => undefined)
      const outcome = yield* sslExpiryCheck({ url: `127.0.0.1:${silent.port}`, timeoutMs: 300 })
      expect(outcome).toMatchObject({ ok: false, error: "timed out after 300 ms", sslDaysLeft: null })
      expect(outcome.durationMs).toBeGreaterThanOrEqual(295)
    }))
})
