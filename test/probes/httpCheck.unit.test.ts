/** The `http` check against real node:http and node:https servers on loopback. */
import * as diagnostics from "node:diagnostics_channel"
import type { ClientRequest, IncomingHttpHeaders } from "node:http"
import type { Socket } from "node:net"

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { bodyReadLimit, httpCheck } from "../../probes/checks/http.js"
import { capError } from "../../probes/checks/outcome.js"
import { runCheck } from "../../probes/checks/runCheck.js"
import { CheckJob } from "../../src/domain/CheckJob.js"
import { makeCa, makeLeaf, startHttpsServer } from "../support/Certificates.js"
import { closedPort, httpServer } from "../support/Servers.js"

describe("http check", () => {
  it.effect("passes on the expected status, on a fresh connection each time, with timing phases", () =>
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

  it.effect("fails on another status, and does not follow redirects", () =>
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

  it.effect("enforces the time-out on a silent server and on a body that never ends", () =>
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

  it.effect("sends GET, HEAD and POST, with the monitor's headers, and a POST's body with its content type", () =>
    Effect.gen(function*() {
      const seen: Array<{ method: string; headers: IncomingHttpHeaders; body: string }> = []
      const target = yield* httpServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => (body += chunk))
        request.on("end", () => {
          seen.push({ method: request.method!, headers: request.headers, body })
          response.writeHead(200, { "content-type": "text/plain" }).end("ok")
        })
      })
      const base = { url: `${target.url}/api`, timeoutMs: 2000, expectedStatusCode: 200 }
      const headers = { "X-Api-Key": "s3cret", "User-Agent": "monitor/1" }
      const outcomes = [
        yield* httpCheck(base),
        yield* httpCheck({ ...base, method: "HEAD", headers, bodyNotContains: "ok" }),
        yield* httpCheck({ ...base, method: "POST", headers, body: "{\"ping\": \"é\"}" }),
        yield* httpCheck({ ...base, method: "POST", body: "ping" }),
        yield* httpCheck({
          ...base,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "a=1"
        }),
        yield* httpCheck({ ...base, method: "POST" }),
        // A body is sent with POST only.
        yield* httpCheck({ ...base, method: "GET", body: "ignored" })
      ]
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null })
        expect(outcome.timings.connectMs).toBeGreaterThanOrEqual(0)
        expect(outcome.timings.firstByteMs).toBeGreaterThanOrEqual(0)
      }
      expect(seen.map(({ body, method }) => ({ method, body }))).toEqual([
        { method: "GET", body: "" },
        { method: "HEAD", body: "" },
        { method: "POST", body: "{\"ping\": \"é\"}" },
        { method: "POST", body: "ping" },
        { method: "POST", body: "a=1" },
        { method: "POST", body: "" },
        { method: "GET", body: "" }
      ])
      const [get, head, json, text, form, empty, getWithBody] = seen.map((request) => request.headers)
      expect(get).toMatchObject({ "user-agent": "status-page-probe", accept: "*/*", connection: "close" })
      expect(get).not.toHaveProperty("content-type")
      // The monitor's headers arrive, its User-Agent replacing the probe's.
      expect(head).toMatchObject({ "x-api-key": "s3cret", "user-agent": "monitor/1" })
      expect(json).toMatchObject({
        "x-api-key": "s3cret",
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength("{\"ping\": \"é\"}"))
      })
      expect(text).toMatchObject({ "content-type": "text/plain; charset=utf-8", "content-length": "4" })
      expect(form).toMatchObject({ "content-type": "application/x-www-form-urlencoded" })
      expect(empty).toMatchObject({ "content-length": "0" })
      expect(empty).not.toHaveProperty("content-type")
      expect(getWithBody).not.toHaveProperty("content-length")
      expect(getWithBody).not.toHaveProperty("transfer-encoding")
    }))

  it.effect("passes on any of the expected codes and ranges, and says which were expected when it fails", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((request, response) => response.writeHead(Number(request.url!.slice(1))).end())
      const check = (status: number, expectedStatusCodes: Array<string> | null) =>
        httpCheck({ url: `${target.url}/${status}`, timeoutMs: 2000, expectedStatusCode: 200, expectedStatusCodes })
      for (const status of [200, 204, 299, 304]) {
        expect(yield* check(status, ["200-299", "304"]), String(status)).toMatchObject({ ok: true, statusCode: status })
      }
      expect(yield* check(503, ["200-299"])).toMatchObject({
        ok: false,
        statusCode: 503,
        error: "expected status 200-299, got 503"
      })
      expect((yield* check(300, ["200-299", "304"])).error).toBe(
        "expected status 200-299, 304, got 300: redirect (3xx) not followed"
      )
      expect(yield* check(503, ["500-599"])).toMatchObject({ ok: true, statusCode: 503 })
      // No list: the single expectedStatusCode, as before.
      expect(yield* check(204, null)).toMatchObject({ ok: false, error: "expected status 200, got 204" })
    }))

  it.effect("finds bodyContains across chunks, and fails on bodyNotContains, saying what it looked for", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((_request, response) => {
        response.writeHead(200, { "content-type": "text/html" })
        // "healthy" split over two writes far enough apart to arrive as two chunks.
        response.write("<p>status: heal")
        setTimeout(() => response.end("thy, 0 errors</p>"), 30)
      })
      const base = { url: target.url, timeoutMs: 2000, expectedStatusCode: 200 }
      expect(yield* httpCheck({ ...base, bodyContains: "healthy", bodyNotContains: "down" })).toMatchObject({
        ok: true,
        error: null
      })
      expect(yield* httpCheck({ ...base, bodyContains: "ok" })).toMatchObject({
        ok: false,
        statusCode: 200,
        error: "expected body to contain \"ok\" in the first 1 MB, not found"
      })
      expect(yield* httpCheck({ ...base, bodyNotContains: "errors" })).toMatchObject({
        ok: false,
        error: "expected body not to contain \"errors\" in the first 1 MB, found"
      })
    }))

  it.effect("reads at most the first 1 MB of a body, then drops the connection", () =>
    Effect.gen(function*() {
      let closedEarly = 0
      const target = yield* httpServer((request, response) => {
        response.writeHead(200)
        if (request.url === "/endless") {
          // Writes as fast as it is read, for ever: the check must stop on its own.
          const chunk = Buffer.alloc(64 * 1024, "a")
          const pump = () => {
            while (!response.destroyed && response.write(chunk));
          }
          response.on("drain", pump)
          response.on("close", () => closedEarly++)
          return pump()
        }
        // The marker ends exactly at the 1 MB limit, or starts right after it.
        const at = request.url === "/last" ? bodyReadLimit - 2 : bodyReadLimit
        response.end(Buffer.concat([Buffer.alloc(at, "a"), Buffer.from("ok"), Buffer.alloc(1000, "a")]))
      })
      const base = { timeoutMs: 5000, expectedStatusCode: 200 }
      const endless = yield* httpCheck({ ...base, url: `${target.url}/endless`, bodyNotContains: "b" })
      expect(endless).toMatchObject({ ok: true, error: null })
      expect(endless.durationMs).toBeLessThan(5000)
      const endlessUnread = yield* httpCheck({ ...base, url: `${target.url}/endless` })
      expect(endlessUnread).toMatchObject({ ok: true, error: null })
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(closedEarly).toBe(2)

      expect(yield* httpCheck({ ...base, url: `${target.url}/last`, bodyContains: "ok" })).toMatchObject({ ok: true })
      expect(yield* httpCheck({ ...base, url: `${target.url}/past`, bodyContains: "ok" })).toMatchObject({
        ok: false,
        error: "expected body to contain \"ok\" in the first 1 MB, not found"
      })
    }))

  it.effect("caps the error at 1000 characters, and never echoes a header's value", () =>
    Effect.gen(function*() {
      const target = yield* httpServer((_request, response) => response.end("nothing to see"))
      const needle = "€".repeat(1024)
      const job = CheckJob.forRun({
        monitorId: "m1",
        type: "http",
        url: target.url,
        timeoutMs: 2000,
        expectedStatusCode: 200,
        intervalSeconds: 60,
        bodyContains: needle
      }, 0)
      const outcome = yield* runCheck(job)
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toHaveLength(1000)
      const prefix = "expected body to contain \""
      expect(outcome.error).toBe(`${prefix}${"€".repeat(999 - prefix.length)}…`)
      // A cut never splits a character made of two UTF-16 units.
      expect(capError(`${"x".repeat(998)}😀😀`)).toBe(`${"x".repeat(998)}…`)
      expect(capError(`${"x".repeat(997)}😀😀`)).toBe(`${"x".repeat(997)}😀…`)

      // Node refuses a value outside Latin-1: the check fails naming the header, not its value.
      const refused = yield* httpCheck({
        url: target.url,
        timeoutMs: 2000,
        expectedStatusCode: 200,
        headers: { authorization: "Bearer tøken€" }
      })
      expect(refused.ok).toBe(false)
      expect(refused.error).toContain("authorization")
      expect(refused.error).not.toContain("tøken")
      expect(target.connections()).toBe(1)
    }))

  it.live("lets go of the request, the response and its listeners once the socket is closed", () =>
    Effect.gen(function*() {
      // Node's own channel hands over each request the check makes.
      // Each request's socket, once every "close" listener (the check's included) has run.
      const closed: Array<Promise<Socket & { _httpMessage?: unknown }>> = []
      const started = (message: unknown) => {
        const { request } = message as { request: ClientRequest }
        // Published once the request has its socket, or before.
        const socket = new Promise<Socket>((resolve) =>
          request.socket ? resolve(request.socket) : request.once("socket", resolve)
        )
        closed.push(socket.then((s) => new Promise((resolve) => s.once("close", () => setImmediate(() => resolve(s))))))
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => diagnostics.subscribe("http.client.request.start", started)),
        () => Effect.sync(() => diagnostics.unsubscribe("http.client.request.start", started))
      )
      const target = yield* httpServer((request, response) =>
        request.url === "/silent" ? undefined : response.end("hello")
      )
      const port = yield* closedPort
      for (const url of [`${target.url}/ok`, `${target.url}/silent`, `http://127.0.0.1:${port}/`]) {
        closed.length = 0
        yield* httpCheck({ url, timeoutMs: 300, expectedStatusCode: 200 })
        expect(closed).toHaveLength(1)
        const socket = yield* Effect.promise(() => closed[0]!)
        // Young collections keep a closed socket until a full one: it must reach nothing else.
        expect(socket._httpMessage, url).toBeNull()
        expect(socket.eventNames(), url).toEqual(["error"])
        expect(socket.listenerCount("error")).toBe(1)
      }
    }).pipe(Effect.scoped))
})
