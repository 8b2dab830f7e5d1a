/** The `http` check against real node:http and node:https servers on loopback. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { httpCheck } from "../../probes/checks/http.js"
import { makeCa, makeLeaf, startHttpsServer } from "../support/Certificates.js"
import { closedPort, httpServer } from "../support/Servers.js"

describe("http check", () => {
  it.scoped("passes on the expected status, on a fresh connection each time, with timing phases", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((_request, response) => response.end("hello"))
      const first = yield* httpCheck({ url: `${target.url}/health`, timeoutMs: 2000, expectedStatusCode: 200 })
      const second = yield* httpCheck({
        url: `http://localhost:${target.port}/health`,
        timeoutMs: 2000,
        expectedStatusCode: 200
      })
      expect(first).toMatchObject({ ok: true, statusCode: 200, error: null, sslDaysLeft: null })
      expect(second).toMatchObject({ ok: true, statusCode: 200 })
      // An IP address needs no DNS lookup; a name does.
      expect(first.timings.dnsMs).toBeNull()
      expect(second.timings.dnsMs).toBeGreaterThanOrEqual(0)
      for (const outcome of [first, second]) {
        expect(outcome.timings.connectMs).toBeGreaterThanOrEqual(0)
        expect(outcome.timings.tlsMs).toBeNull()
        expect(outcome.timings.firstByteMs).toBeGreaterThanOrEqual(0)
        expect(outcome.durationMs).toBeGreaterThanOrEqual(outcome.timings.firstByteMs!)
      }
      expect(target.connections()).toBe(2)
    }))

  it.scoped("fails on another status, and does not follow redirects", () =>
    Effect.gen(function*() {
      const paths: Array<string> = []
      const target = yield* httpServer((request, response) => {
        paths.push(request.url!)
        if (request.url === "/moved") return response.writeHead(301, { location: "/health" }).end()
        response.writeHead(503).end()
      })
      const unavailable = yield* httpCheck({ url: `${target.url}/health`, timeoutMs: 2000, expectedStatusCode: 200 })
      expect(unavailable).toMatchObject({ ok: false, statusCode: 503, error: "expected status 200, got 503" })

      const moved = yield* httpCheck({ url: `${target.url}/moved`, timeoutMs: 2000, expectedStatusCode: 200 })
      expect(moved).toMatchObject({ ok: false, statusCode: 301 })
      // The Location is not echoed into the error.
      expect(moved.error).toBe("expected status 200, got 301: redirect (3xx) not followed")
      expect(paths).toEqual(["/health", "/moved"])

      const expectedRedirect = yield* httpCheck({
        url: `${target.url}/moved`,
        timeoutMs: 2000,
        expectedStatusCode: 301
      })
      expect(expectedRedirect).toMatchObject({ ok: true, statusCode: 301 })
    }))

  it.scoped("enforces the time-out on a silent server and on a body that never ends", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((request, response) => {
        if (request.url === "/drip") {
          response.writeHead(200)
          response.write("partial")
        }
        // otherwise: never answer
      })
      for (const path of ["/silent", "/drip"]) {
        const outcome = yield* httpCheck({ url: `${target.url}${path}`, timeoutMs: 300, expectedStatusCode: 200 })
        expect(outcome.ok).toBe(false)
        expect(outcome.error).toBe("timed out after 300 ms")
        expect(outcome.durationMs).toBeGreaterThanOrEqual(295)
        expect(outcome.durationMs).toBeLessThan(1500)
      }
    }))

  it.live("reports a refused connection and an invalid URL", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const refused = yield* httpCheck({ url: `http://127.0.0.1:${port}/`, timeoutMs: 2000, expectedStatusCode: 200 })
      expect(refused).toMatchObject({ ok: false, statusCode: null })
      expect(refused.error).toContain("ECONNREFUSED")
      const invalid = yield* httpCheck({ url: "ftp://example.test/", timeoutMs: 2000, expectedStatusCode: 200 })
      expect(invalid).toMatchObject({ ok: false, error: "invalid http(s) URL: ftp://example.test/" })
    }))

  it.live("measures TLS over https and trusts an extra CA only when given", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const leaf = yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 90 }))
      const server = yield* Effect.acquireRelease(Effect.promise(() => startHttpsServer(leaf)), (s) =>
        Effect.promise(s.close))
      const check = { url: `https://localhost:${server.port}/`, timeoutMs: 3000, expectedStatusCode: 200 }

      const trusted = yield* httpCheck(check, { extraCa: ca.cert })
      expect(trusted).toMatchObject({ ok: true, statusCode: 200, error: null })
      expect(trusted.timings.tlsMs).toBeGreaterThan(0)
      expect(trusted.timings.dnsMs).toBeGreaterThanOrEqual(0)

      const untrusted = yield* httpCheck(check)
      expect(untrusted).toMatchObject({ ok: false, statusCode: null })
      expect(untrusted.error).toContain("UNABLE_TO_VERIFY_LEAF_SIGNATURE")
    }).pipe(Effect.scoped))
})
