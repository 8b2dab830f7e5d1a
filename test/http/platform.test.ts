import { expect, it, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { HttpClient } from "effect/http"

import { ApiClient, DatabaseProxy, sendJson, TestServer, TestStackBehindProxy } from "../support/TestServer.js"

it.layer(TestServer())("platform endpoints", (it) => {
  it.effect("healthz and readyz answer ok", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect(yield* client.health.live()).toEqual({ status: "ok" })
      expect(yield* client.health.ready()).toEqual({ status: "ok" })
    }))

  it.effect("serves the OpenAPI document generated from the API and the docs page", () =>
    Effect.gen(function*() {
      const openapi = yield* sendJson("GET", "/api/v1/openapi.json")
      expect(openapi.status).toBe(200)
      expect(openapi.body.openapi).toMatch(/^3\./)
      expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining([
        "/api/v1/status",
        "/api/v1/status/components",
        "/api/v1/admin/components",
        "/api/v1/admin/components/{id}",
        "/api/v1/admin/components/{id}/status",
        "/api/v1/admin/org",
        "/api/v1/admin/org/{id}"
      ]))
      expect(openapi.body.paths["/api/v1/admin/components"].post.responses["201"]).toBeDefined()

      const client = yield* HttpClient.HttpClient
      const docs = yield* client.get("/docs")
      expect(docs.status).toBe(200)
      expect(yield* docs.text).toContain("swagger")
    }))

  it.effect("answers unknown routes with a JSON 404", () =>
    Effect.gen(function*() {
      const response = yield* sendJson("GET", "/api/v1/nothing-here")
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ _tag: "NotFound", message: "No endpoint GET /api/v1/nothing-here" })
    }))
})

// Real time here: the pool reconnects on its own schedule.
layer(TestStackBehindProxy, { excludeTestServices: true })("database outage", (it) => {
  it.effect("answers 503 with the error body while the database is away, and recovers", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      yield* client.components.create({ payload: { name: "Before" } })

      // Public reads are served from the in-memory snapshot, so they outlive the database.
      expect((yield* client.status.summary()).components.map((c) => c.name)).toEqual(["Before"])

      const proxy = yield* DatabaseProxy
      yield* Effect.promise(proxy.cut)
      const summary = yield* sendJson("GET", "/api/v1/status")
      expect(summary.status).toBe(200)
      expect(summary.body.components.map((c: { name: string }) => c.name)).toEqual(["Before"])
      for (
        const [method, url, body] of [
          ["GET", "/api/v1/admin/components", undefined],
          ["POST", "/api/v1/admin/components", { name: "During" }],
          ["GET", "/readyz", undefined]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, `${method} ${url}`).toBe(503)
        expect(response.body).toEqual({ _tag: "ServiceUnavailable", message: expect.any(String) })
      }
      expect((yield* sendJson("GET", "/healthz")).status).toBe(200)

      yield* Effect.promise(proxy.restore)
      const names = yield* client.components.list({ query: {} }).pipe(
        Effect.retry({ times: 25, schedule: Schedule.spaced("200 millis") }),
        Effect.map((list) => list.map((c) => c.name))
      )
      expect(names).toEqual(["Before"])
      expect((yield* sendJson("GET", "/readyz")).status).toBe(200)
    }), 30_000)
})
