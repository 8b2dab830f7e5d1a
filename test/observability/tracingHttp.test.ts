/**
 * Traces of API requests, exported over OTLP/HTTP to a receiver started by the test: a request
 * span, the span of the service call it makes and the spans of its SQL statements share one
 * trace, the URL the span records has its secrets redacted as the request log does, and only
 * the headers of an allow-list are recorded.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"

import { eventually } from "../support/Eventually.js"
import { ApiClient, LiveTestServer, sendJson } from "../support/TestServer.js"
import { type OtlpSink, otlpSink, tracingTo } from "./tracingSink.js"

class Sink extends Context.Service<Sink, OtlpSink>()("test/Sink") {}

const Stack = Layer.unwrap(Effect.map(otlpSink, (sink) =>
  LiveTestServer().pipe(
    Layer.provide(tracingTo(sink, "status-page")),
    Layer.merge(Layer.succeed(Sink, sink))
  )))

/** A SQL statement's span: named after the database it runs on (OpenTelemetry's rule), with its text. */
const isStatement = (span: { readonly kind: number; readonly attributes: Record<string, unknown> }) =>
  span.kind === 3 && typeof span.attributes["db.query.text"] === "string"

layer(Stack, { excludeTestServices: true, timeout: "60 seconds" })("request traces", (it) => {
  it.effect("a request's span and its SQL statements' spans are one trace, sent to the collector", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const client = yield* ApiClient
      const created = yield* client.components.create({ payload: { name: "Traced" } })

      const spans = yield* eventually(
        Effect.sync(() => sink.spans),
        (all) =>
          all.some((span) =>
            span.name.startsWith("http.server") && span.attributes["http.request.method"] === "POST" &&
            all.some((sql) => isStatement(sql) && sql.traceId === span.traceId)
          ),
        10_000
      )
      const request = spans.find((span) =>
        span.name === "http.server POST" && span.attributes["http.route"] === "/api/v1/admin/components"
      )!
      expect(request).toMatchObject({
        service: "status-page",
        kind: 2, // server
        attributes: { "http.response.status_code": 201, "url.path": "/api/v1/admin/components" }
      })
      const trace = spans.filter((span) => span.traceId === request.traceId)
      const byId = new Map(trace.map((span) => [span.spanId, span]))
      const sql = trace.filter(isStatement)
      expect(sql.length).toBeGreaterThan(0)
      expect(sql.some((span) => String(span.attributes["db.query.text"]).toLowerCase().includes("insert"))).toBe(true)
      // Every SQL span descends from the request span, through the spans in between (a transaction).
      const ancestors = (span: (typeof trace)[number]) => {
        const names: Array<string> = []
        for (let at = byId.get(span.parentSpanId ?? ""); at !== undefined; at = byId.get(at.parentSpanId ?? "")) {
          names.push(at.name)
        }
        return names
      }
      for (const span of sql) expect(ancestors(span)).toContain("http.server POST")
      expect(trace.some((span) => span.name === "sql.transaction")).toBe(true)
      // The service call sits between the request and its statements.
      const service = trace.find((span) => span.name === "Components.create")!
      expect(service).toBeDefined()
      expect(ancestors(service)).toContain("http.server POST")
      // The component's own insert (the key's first use from this address is an insert of its own, audited).
      const insert = sql.find((span) =>
        String(span.attributes["db.query.text"]).toLowerCase().includes("insert into components")
      )!
      expect(ancestors(insert)).toEqual(expect.arrayContaining(["Components.create", "http.server POST"]))
      expect(ancestors(insert).indexOf("Components.create")).toBeLessThan(ancestors(insert).indexOf("http.server POST"))
      expect(created.name).toBe("Traced")
      // The exporter's own requests are not traced (no span for POST /v1/traces).
      expect(spans.some((span) => String(span.attributes["url.full"] ?? "").includes("/v1/traces"))).toBe(false)
    }))

  it.effect("the URL a request span records has its secrets redacted", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const secret = "s3cr3t-token-value-that-must-not-leak"
      // A form posted from an unsubscribe page names that page in its Referer.
      const response = yield* sendJson("GET", `/api/v1/status?token=${secret}&email=a%40example.com`, undefined, {
        referer: `http://localhost/unsubscribe?email=a%40example.com&token=${secret}`
      })
      // Refused (the status JSON takes no query), and traced all the same.
      expect(response.status).toBe(400)
      const spans = yield* eventually(
        Effect.sync(() => sink.spans.filter((span) => span.attributes["url.path"] === "/api/v1/status")),
        (found) => found.length > 0,
        10_000
      )
      const url = String(spans[0]!.attributes["url.full"])
      expect(url).toContain("token=REDACTED")
      expect(url).toContain("email=REDACTED")
      expect(spans[0]!.attributes["url.query"]).toBe("token=REDACTED&email=REDACTED")
      expect(spans[0]!.attributes["http.request.header.referer"]).toBe(
        "http://localhost/unsubscribe?email=REDACTED&token=REDACTED"
      )
      // The server's spans only: the test's own HTTP client traces into the same sink.
      const server = JSON.stringify(sink.spans.filter((span) => span.name !== "http.client GET"))
      expect(server).not.toContain(secret)
      expect(server).not.toContain("a%40example.com")
    }))

  it.effect("spans record the headers of an allow-list only, on the server and the client alike", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const proxySecret = "Basic cHJveHk6cHJveHktc2VjcmV0LXZhbHVl"
      const authToken = "x-auth-token-secret-value"
      const requestId = `traced-${Date.now()}`
      // An admin read: the public fast path answers /api/v1/status from memory, with no span.
      const response = yield* sendJson("GET", "/api/v1/admin/components", undefined, {
        "proxy-authorization": proxySecret,
        "x-auth-token": authToken,
        "x-request-id": requestId
      })
      expect(response.status).toBe(200)
      const spans = yield* eventually(
        Effect.sync(() =>
          sink.spans.filter((span) => span.attributes["http.request.header.x-request-id"] === requestId)
        ),
        (found) => found.some((span) => span.kind === 2) && found.some((span) => span.kind === 3),
        10_000
      )
      // The server's span and the test client's (outgoing) span both keep an allowed header.
      expect(spans.map((span) => span.name).sort()).toEqual(["http.client GET", "http.server GET"])
      const everything = JSON.stringify(sink.spans)
      for (const secret of [proxySecret, authToken]) expect(everything).not.toContain(secret)
      for (const span of sink.spans) {
        const names = Object.keys(span.attributes)
        expect(names.filter((name) => /proxy-authorization|x-auth-token/.test(name)), span.name).toEqual([])
      }
    }))
})
