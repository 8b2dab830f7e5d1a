/**
 * `GET /metrics` of a real server, parsed as Prometheus text: the request counter moves by the
 * calls made, with their route template and status; METRICS_TOKEN refuses a scrape without
 * the token; METRICS_PORT serves the metrics on a port of their own and not on the main one.
 * Ingest counts checks by region and outcome, results stored, transitions and refused reports.
 */
import { randomUUID } from "node:crypto"

import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"

import { MetricsServer } from "../../src/http/MetricsHttp.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { metricsUrlIn } from "../support/ChildProcess.js"
import { minimumLogLevel, replaceDefaultLogger } from "../support/Logs.js"
import { parseMetrics } from "../support/Prometheus.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const token = "metrics-token-for-the-suite"

const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address as NetAddress.InetAddress
  return `http://127.0.0.1:${address.port}`
})

const scrape = (url: string, bearer?: string) =>
  Effect.promise(() => fetch(url, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } }))

const requestCount = (text: string, route: string, status: string) =>
  parseMetrics(text).find((family) => family.name === "status_page_http_requests_total")?.metrics
    .filter((m) => m.labels?.route === route && m.labels?.status === status && m.labels?.method === "GET")
    .reduce((sum, m) => sum + Number(m.value), 0) ?? 0

layer(LiveTestServer({ METRICS_TOKEN: token }), { excludeTestServices: true, timeout: "60 seconds" })(
  "metrics on the main port",
  (it) => {
    it.effect("refuses a scrape without the token, with the contract's error body", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        for (const bearer of [undefined, "wrong"]) {
          const response = yield* scrape(`${base}/metrics`, bearer)
          expect(response.status).toBe(401)
          expect(yield* Effect.promise(() => response.json())).toMatchObject({ _tag: "Unauthorized" })
        }
      }))

    it.effect("counts requests by route template and status", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const first = yield* scrape(`${base}/metrics`, token)
        const before = yield* Effect.promise(() => first.text())
        const client = yield* ApiClient
        yield* client.components.list({ query: {} })
        yield* client.components.list({ query: {} })
        const response = yield* scrape(`${base}/metrics`, token)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toContain("text/plain")
        const after = yield* Effect.promise(() => response.text())
        const route = "/api/v1/admin/components"
        expect(requestCount(after, route, "200") - requestCount(before, route, "200")).toBe(2)
        const families = new Map(parseMetrics(after).map((family) => [family.name, family.type]))
        expect(families.get("status_page_http_request_duration_seconds")).toBe("HISTOGRAM")
      }))
  }
)

/** A layer's log, a line per message from Info up (in place of the console's), for reading a logged port. */
const recordingLogger = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push(`${(Array.isArray(message) ? message : [message]).map(String).join(" ")}\n`)
  })
  return {
    lines,
    layer: Layer.merge(replaceDefaultLogger(logger), minimumLogLevel("Info"))
  }
}

// METRICS_PORT set: the main port leaves /metrics out, even with a token.
layer(LiveTestServer({ METRICS_TOKEN: token, METRICS_PORT: "9" }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})(
  "metrics on METRICS_PORT",
  (it) => {
    it.effect("serves /metrics on its own port, with the token, and not on the main port", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        expect((yield* scrape(`${base}/metrics`, token)).status).toBe(404)
        // Any free port: the server logs the one it got.
        const log = recordingLogger()
        yield* Layer.build(Layer.fresh(MetricsServer.pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
            METRICS_PORT: "0",
            METRICS_TOKEN: token,
            HOST: "127.0.0.1"
          }))),
          Layer.provide(log.layer)
        )))
        const own = metricsUrlIn(log.lines.join(""))
        expect(own, log.lines.join("")).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/metrics$/)
        expect((yield* scrape(own!)).status).toBe(401)
        expect((yield* scrape(new URL("/other", own).href, token)).status).toBe(404)
        const response = yield* scrape(own!, token)
        expect(response.status).toBe(200)
        const families = parseMetrics(yield* Effect.promise(() => response.text())).map((family) => family.name)
        expect(families).toContain("status_page_http_requests_total")
      }).pipe(Effect.scoped))
  }
)

const familyValue = (text: string, name: string, labels: Record<string, string> = {}) =>
  parseMetrics(text).find((family) => family.name === name)?.metrics
    .filter((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))
    .reduce((sum, m) => sum + Number(m.value), 0) ?? 0

const IngestStack = ResultIngest.layer.pipe(Layer.provideMerge(LiveTestServer({ METRICS_TOKEN: token })))

layer(IngestStack, { excludeTestServices: true, timeout: "60 seconds" })("ingest metrics", (it) => {
  it.effect("counts stored checks by region and outcome, and the quorum transitions", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const read = Effect.flatMap(scrape(`${base}/metrics`, token), (r) => Effect.promise(() => r.text()))
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Measured" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: "https://example.com",
          regions: ["eu", "us"],
          quorum: "any",
          failureThreshold: 1
        }
      })
      const before = yield* read
      const at = slotOf(monitor.id, Date.now())
      yield* (yield* ResultIngest).ingest([
        checkResult(monitor.id, "eu", at, true),
        checkResult(monitor.id, "us", at, false),
        // A report of a run nobody scheduled (no such monitor): refused, not stored.
        checkResult(randomUUID(), "eu", at, true)
      ])
      const after = yield* read
      const delta = (name: string, labels: Record<string, string> = {}) =>
        familyValue(after, name, labels) - familyValue(before, name, labels)
      expect(delta("status_page_checks_total", { region: "eu", outcome: "ok" })).toBe(1)
      expect(delta("status_page_checks_total", { region: "us", outcome: "failed" })).toBe(1)
      expect(delta("status_page_results_stored_total")).toBe(2)
      expect(delta("status_page_monitor_transitions_total", { to: "down" })).toBe(1)
      expect(delta("status_page_reports_refused_total")).toBe(1)
    }))
})
