/**
 * GET /api/v1/admin/probes: admin only (401 without credentials; an API key or a session), the
 * documented shape, sorted by region then name, `online` by the server's clock.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { adminVariables, sessionCookieHeader } from "../support/Auth.js"
import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

const Stack = ProbeRegistry.layer.pipe(Layer.provideMerge(TestServer(adminVariables)))

const heartbeat = (region: string, name: string, startedAt: number, sentAt: number) => ({
  region,
  heartbeat: new ProbeHeartbeat({
    name,
    version: "2.0.1",
    startedAt,
    sentAt,
    concurrency: 16,
    checksLastMinute: 30,
    lagMs: 4,
    inFlight: 1
  })
})

it.layer(Stack)("probes API", (it) => {
  it.effect("needs an API key or a session: 401 without", () =>
    Effect.gen(function*() {
      const anonymous = yield* sendAnonymous("GET", "/api/v1/admin/probes")
      expect(anonymous.status).toBe(401)
      expect(anonymous.body).toMatchObject({ _tag: "Unauthorized" })
      const wrongKey = yield* sendAnonymous("GET", "/api/v1/admin/probes", undefined, {
        authorization: "Bearer svc_notakeyatallnotakeyatallnotakeya"
      })
      expect(wrongKey.status).toBe(401)

      const withSession = yield* sendAnonymous("GET", "/api/v1/admin/probes", undefined, {
        cookie: yield* sessionCookieHeader
      })
      expect(withSession.status).toBe(200)
      expect(Array.isArray(withSession.body)).toBe(true)
    }))

  it.effect("lists every probe in the documented shape, by region then name, online or not", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      const start = yield* Clock.currentTimeMillis
      yield* registry.recordHeartbeats([heartbeat("us-east", "use-1", start - 5_000, start)])
      yield* TestClock.adjust("40 seconds")
      const now = yield* Clock.currentTimeMillis
      yield* registry.recordHeartbeats([
        heartbeat("us-east", "use-0", now - 1_000, now),
        heartbeat("eu-west", "euw-2", now - 1_000, now),
        heartbeat("eu-west", "euw-1", now - 1_000, now)
      ])

      const response = yield* sendJson("GET", "/api/v1/admin/probes")
      expect(response.status).toBe(200)
      expect(response.body.map((p: { region: string; name: string; online: boolean }) => [p.region, p.name, p.online]))
        .toEqual([
          ["eu-west", "euw-1", true],
          ["eu-west", "euw-2", true],
          ["us-east", "use-0", true],
          ["us-east", "use-1", false]
        ])
      expect(response.body[3]).toEqual({
        name: "use-1",
        region: "us-east",
        version: "2.0.1",
        startedAt: new Date(start - 5_000).toISOString(),
        lastSeenAt: new Date(start).toISOString(),
        online: false,
        checksLastMinute: 30,
        concurrency: 16,
        lagMs: 4,
        inFlight: 1
      })

      // The typed client decodes the same answer.
      const listed = yield* (yield* ApiClient).probes.list({ query: {} })
      expect(listed.map((p) => p.name)).toEqual(["euw-1", "euw-2", "use-0", "use-1"])
    }))

  it.effect("is in the OpenAPI document under the API key and session schemes", () =>
    Effect.gen(function*() {
      const document = (yield* sendAnonymous("GET", "/api/v1/openapi.json")).body
      const operation = document.paths["/api/v1/admin/probes"]?.get
      expect(operation?.summary).toBe("List probe agents")
      expect(operation?.security).toEqual([{ apiKey: [] }, { session: [] }])
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["200", "401"]))
    }))
})
