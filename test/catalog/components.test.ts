import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("components", (it) => {
  it.effect("creates with defaults, lists by displayOrder and updates partially", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      // Sent raw: the typed client would refuse the untrimmed name before sending it.
      const created = yield* sendJson("POST", "/api/v1/admin/components", { name: "  Web app  " })
      expect(created.status).toBe(201)
      const web = created.body
      expect(web).toMatchObject({ name: "Web app", description: "", status: "operational", isPublic: true })
      expect(web.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const api = yield* client.components.create({
        payload: { name: "API", description: "REST API", status: "degraded", displayOrder: -1, isPublic: true }
      })
      const last = yield* client.components.create({ payload: { name: "Last" } })
      expect(last.displayOrder).toBeGreaterThan(web.displayOrder)

      const listed = yield* client.components.list({ query: {} })
      const names = listed.map((c) => c.name)
      expect(names.indexOf("API")).toBeLessThan(names.indexOf("Web app"))
      expect(names.indexOf("Web app")).toBeLessThan(names.indexOf("Last"))

      const updated = yield* client.components.update({
        params: { id: api.id },
        payload: { description: "Public API" }
      })
      expect(updated).toMatchObject({ name: "API", description: "Public API", status: "degraded", displayOrder: -1 })

      const unchanged = yield* client.components.update({ params: { id: api.id }, payload: {} })
      expect(unchanged.description).toBe("Public API")
    }))

  it.effect("sets the status with PATCH and deletes", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "Database" } })
      const patched = yield* client.components.setStatus({ params: { id: db.id }, payload: { status: "major_outage" } })
      expect(patched.status).toBe("major_outage")

      yield* client.components.remove({ params: { id: db.id } })
      const after = yield* client.components.list({ query: {} })
      expect(after.find((c) => c.id === db.id)).toBeUndefined()

      const deleteAgain = yield* sendJson("DELETE", `/api/v1/admin/components/${db.id}`)
      expect(deleteAgain.status).toBe(404)
      expect(deleteAgain.body).toMatchObject({ _tag: "NotFound" })
    }))

  it.effect("answers 404 with the error body for unknown ids", () =>
    Effect.gen(function*() {
      for (
        const [method, url, body] of [
          ["PUT", "/api/v1/admin/components/nope", { name: "x" }],
          ["PATCH", "/api/v1/admin/components/nope/status", { status: "degraded" }],
          ["DELETE", "/api/v1/admin/components/nope", undefined]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, `${method} ${url}`).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: "Component \"nope\" was not found" })
      }
    }))

  it.effect("refuses ids PostgreSQL cannot compare with 400, not 500", () =>
    Effect.gen(function*() {
      for (const [method, body] of [["PUT", { name: "x" }], ["DELETE", undefined]] as const) {
        const nul = yield* sendJson(method, "/api/v1/admin/components/%00", body)
        expect(nul.status, method).toBe(400)
        // The router itself refuses parameters over 100 characters as an unknown route.
        const long = yield* sendJson(method, `/api/v1/admin/components/${"x".repeat(500)}`, body)
        expect([400, 404], method).toContain(long.status)
        expect(typeof long.body._tag).toBe("string")
      }
    }))

  it.effect("rejects every kind of bad body with 400 and the error shape", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const target = yield* client.components.create({ payload: { name: "Target" } })
      const cases: ReadonlyArray<readonly [string, "POST" | "PUT" | "PATCH", string, unknown]> = [
        ["malformed JSON", "POST", "/api/v1/admin/components", "{\"name\":"],
        ["not an object", "POST", "/api/v1/admin/components", [1, 2]],
        ["missing name", "POST", "/api/v1/admin/components", { description: "x" }],
        ["blank name", "POST", "/api/v1/admin/components", { name: "   " }],
        ["name too long", "POST", "/api/v1/admin/components", { name: "x".repeat(201) }],
        ["NUL in name", "POST", "/api/v1/admin/components", { name: "a\u0000b" }],
        ["wrong type", "POST", "/api/v1/admin/components", { name: 42 }],
        ["unknown status", "POST", "/api/v1/admin/components", { name: "x", status: "down" }],
        ["fractional order", "POST", "/api/v1/admin/components", { name: "x", displayOrder: 1.5 }],
        ["order out of range", "POST", "/api/v1/admin/components", { name: "x", displayOrder: 2 ** 31 }],
        ["isPublic not boolean", "POST", "/api/v1/admin/components", { name: "x", isPublic: "yes" }],
        ["description too long", "PUT", `/api/v1/admin/components/${target.id}`, { description: "d".repeat(2001) }],
        ["null name", "PUT", `/api/v1/admin/components/${target.id}`, { name: null }],
        ["unknown status on PATCH", "PATCH", `/api/v1/admin/components/${target.id}/status`, { status: "broken" }],
        ["missing status on PATCH", "PATCH", `/api/v1/admin/components/${target.id}/status`, {}]
      ]
      for (const [label, method, url, body] of cases) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
        expect(typeof response.body._tag, label).toBe("string")
        expect(typeof response.body.message, label).toBe("string")
      }
      const missing = yield* sendJson("POST", "/api/v1/admin/components", { description: "x" })
      expect(missing.body._tag).toBe("HttpApiDecodeError")
      expect(missing.body.issues).toContainEqual(expect.objectContaining({ path: ["name"] }))

      const stillThere = yield* client.components.list({ query: {} })
      expect(stillThere.map((c) => c.name)).not.toContain("x")
      expect(stillThere.find((c) => c.id === target.id)?.description).toBe("")
    }))
})
