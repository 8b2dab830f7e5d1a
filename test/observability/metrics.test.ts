/**
 * `GET /metrics` of a real server, parsed as Prometheus text: the request counter moves by the
 * calls made, with their route template and status; METRICS_TOKEN refuses a scrape without
 * the token; METRICS_PORT serves the metrics on a port of their own and not on the main one.
 */
import { createServer } from "node:net"

import { HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import parse from "parse-prometheus-text-format"

import { MetricsServer } from "../../src/http/MetricsHttp.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const token = "metrics-token-for-the-suite"

const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address as HttpServer.TcpAddress
  return `http://127.0.0.1:${address.port}`
})

const scrape = (url: string, bearer?: string) =>
  Effect.promise(() => fetch(url, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } }))

const requestCount = (text: string, route: string, status: string) =>
  parse(text).find((family) => family.name === "status_page_http_requests_total")?.metrics
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
        yield* client.components.list()
        yield* client.components.list()
        const response = yield* scrape(`${base}/metrics`, token)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toContain("text/plain")
        const after = yield* Effect.promise(() => response.text())
        const route = "/api/v1/admin/components"
        expect(requestCount(after, route, "200") - requestCount(before, route, "200")).toBe(2)
        const families = new Map(parse(after).map((family) => [family.name, family.type]))
        expect(families.get("status_page_http_request_duration_seconds")).toBe("HISTOGRAM")
      }))
  }
)

const freePort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
)

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
        const port = yield* freePort
        yield* Layer.build(MetricsServer.pipe(
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({
            METRICS_PORT: String(port),
            METRICS_TOKEN: token,
            HOST: "127.0.0.1"
          })))
        ))
        const own = `http://127.0.0.1:${port}`
        expect((yield* scrape(`${own}/metrics`)).status).toBe(401)
        expect((yield* scrape(`${own}/other`, token)).status).toBe(404)
        const response = yield* scrape(`${own}/metrics`, token)
        expect(response.status).toBe(200)
        const families = parse(yield* Effect.promise(() => response.text())).map((family) => family.name)
        expect(families).toContain("status_page_http_requests_total")
      }).pipe(Effect.scoped))
  }
)

const familyValue = (text: string, name: string, labels: Record<string, string> = {}) =>
  parse(text).find((family) => family.name === name)?.metrics
    .filter((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))
    .reduce((sum, m) => sum + Number(m.value), 0) ?? 0

const IngestStack = ResultIngest.Default.pipe(Layer.provideMerge(LiveTestServer({ METRICS_TOKEN: token })))

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
        checkResult(monitor.id, "us", at, false)
      ])
      const after = yield* read
      const delta = (name: string, labels: Record<string, string> = {}) =>
        familyValue(after, name, labels) - familyValue(before, name, labels)
      expect(delta("status_page_checks_total", { region: "eu", outcome: "ok" })).toBe(1)
      expect(delta("status_page_checks_total", { region: "us", outcome: "failed" })).toBe(1)
      expect(delta("status_page_results_stored_total")).toBe(2)
      expect(delta("status_page_monitor_transitions_total", { to: "down" })).toBe(1)
    }))
})
