/**
 * Walks every admin operation of the service's own OpenAPI document and proves that none
 * answers without valid credentials: none at all, a forged key, an expired key, a bad cookie.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { TestClock } from "effect/testing"

import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

it.layer(TestServer())("admin access", (it) => {
  it.effect("every admin endpoint answers 401 without valid credentials", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const now = yield* DateTime.now
      const expiring = yield* client.apiKeys.create({
        payload: { name: "expiring", expiresAt: DateTime.add(now, { minutes: 1 }) }
      })
      yield* TestClock.adjust("2 minutes")

      const openapi = (yield* sendJson("GET", "/api/v1/openapi.json")).body as {
        paths: Record<string, Record<string, unknown>>
      }
      const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() as Method }))
      ).filter(({ path }) => path.startsWith("/api/v1/admin/") || path === "/api/v1/auth/me")
      expect(operations.length).toBeGreaterThanOrEqual(11)

      const credentials: ReadonlyArray<readonly [string, Record<string, string>]> = [
        ["none", {}],
        ["forged key", { authorization: `Bearer svc_${"A".repeat(32)}` }],
        ["expired key", { authorization: `Bearer ${expiring.key}` }],
        ["empty bearer", { authorization: "Bearer " }],
        ["unknown session", { cookie: "__Host-session=not-a-session" }],
        ["empty session", { cookie: "__Host-session=" }]
      ]
      for (const { method, path } of operations) {
        const url = path.replace(/\{[^}]+\}/g, "some-id")
        const body = ["POST", "PUT", "PATCH"].includes(method) ? {} : undefined
        for (const [label, headers] of credentials) {
          const response = yield* sendAnonymous(method, url, body, headers)
          expect(response.status, `${method} ${url} with ${label}`).toBe(401)
          expect(response.body._tag).toBe("Unauthorized")
          expect(typeof response.body.message).toBe("string")
        }
      }
    }))

  it.effect("the OpenAPI document declares the two security schemes on admin operations", () =>
    Effect.gen(function*() {
      const openapi = (yield* sendJson("GET", "/api/v1/openapi.json")).body
      expect(Object.keys(openapi.components.securitySchemes).sort()).toEqual(["apiKey", "session"])
      expect(openapi.paths["/api/v1/admin/components"].get.security).toEqual([{ apiKey: [] }, { session: [] }])
      expect(openapi.paths["/api/v1/status"].get.security).toEqual([])
    }))
})
