import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("monitors", (it) => {
  const component = Effect.flatMap(ApiClient, (client) => client.components.create({ payload: { name: "Checked" } }))

  it.effect("creates each type with defaults and stores the target in one form", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component

      const http = yield* client.monitors.create({
        payload: { componentId, type: "http", url: "https://example.com/health" }
      })
      expect(http).toMatchObject({
        componentId,
        type: "http",
        url: "https://example.com/health",
        intervalSeconds: 60,
        timeoutMs: 10000,
        expectedStatusCode: 200,
        failureThreshold: 3,
        regions: null
      })
      const tcp = yield* client.monitors.create({ payload: { componentId, type: "tcp", url: "db.internal:5432" } })
      expect(tcp).toMatchObject({ url: "tcp://db.internal:5432", expectedStatusCode: null })
      const ssl = yield* client.monitors.create({
        payload: {
          componentId,
          type: "ssl_expiry",
          url: "https://example.com:8443",
          intervalSeconds: 10,
          regions: ["eu-west", "us-east"]
        }
      })
      expect(ssl).toMatchObject({ url: "https://example.com:8443", timeoutMs: 5000, regions: ["eu-west", "us-east"] })

      const listed = yield* client.monitors.list({ query: {} })
      expect(listed.map((m) => m.id)).toEqual([http.id, tcp.id, ssl.id])
    }))

  it.effect("updates partially; a type change resets expectedStatusCode; delete is 204 then 404", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const monitor = yield* client.monitors.create({
        payload: { componentId, type: "http", url: "http://example.com", expectedStatusCode: 204 }
      })
      const slower = yield* client.monitors.update({
        params: { id: monitor.id },
        payload: { intervalSeconds: 300, failureThreshold: 5 }
      })
      expect(slower).toMatchObject({
        intervalSeconds: 300,
        failureThreshold: 5,
        expectedStatusCode: 204,
        url: "http://example.com/"
      })

      const tcp = yield* client.monitors.update({
        params: { id: monitor.id },
        payload: { type: "tcp", url: "tcp://example.com:443" }
      })
      expect(tcp).toMatchObject({ type: "tcp", expectedStatusCode: null })
      const back = yield* client.monitors.update({
        params: { id: monitor.id },
        payload: { type: "http", url: "https://example.com" }
      })
      expect(back.expectedStatusCode).toBe(200)

      expect((yield* sendJson("DELETE", `/api/v1/admin/monitors/${monitor.id}`)).status).toBe(204)
      expect((yield* sendJson("DELETE", `/api/v1/admin/monitors/${monitor.id}`)).status).toBe(404)
      expect((yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, {})).status).toBe(404)
    }))

  it.effect("deleting a component deletes its monitors", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const owner = yield* component
      const monitor = yield* client.monitors.create({
        payload: { componentId: owner.id, type: "tcp", url: "a.example:80" }
      })
      yield* client.components.remove({ params: { id: owner.id } })
      expect((yield* client.monitors.list({ query: {} })).map((m) => m.id)).not.toContain(monitor.id)
    }))

  it.effect("a missing component is 404", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const created = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: "nope",
        type: "http",
        url: "https://a.example"
      })
      expect(created.status).toBe(404)
      expect(created.body._tag).toBe("NotFound")
      const { id: componentId } = yield* component
      const monitor = yield* client.monitors.create({
        payload: { componentId, type: "http", url: "https://a.example" }
      })
      const moved = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, { componentId: "nope" })
      expect(moved.status).toBe(404)
    }))

  it.effect("refuses every invalid definition with 400 naming the field", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const base = { componentId, type: "http", url: "https://example.com" }
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["unknown type", { ...base, type: "smtp" }, "type"],
        ["missing url", { componentId, type: "http" }, "url"],
        ["ftp for http", { ...base, url: "ftp://example.com" }, "url"],
        ["relative url", { ...base, url: "/health" }, "url"],
        ["tcp without port", { ...base, type: "tcp", url: "example.com" }, "url"],
        ["tcp port out of range", { ...base, type: "tcp", url: "example.com:70000" }, "url"],
        ["tcp as http url", { ...base, type: "tcp", url: "http://example.com:80" }, "url"],
        ["ssl over http", { ...base, type: "ssl_expiry", url: "http://example.com" }, "url"],
        ["ssl with a path", { ...base, type: "ssl_expiry", url: "https://example.com/x" }, "url"],
        ["interval too short", { ...base, intervalSeconds: 9 }, "intervalSeconds"],
        ["interval too long", { ...base, intervalSeconds: 86401 }, "intervalSeconds"],
        ["fractional interval", { ...base, intervalSeconds: 30.5 }, "intervalSeconds"],
        ["timeout too short", { ...base, timeoutMs: 99 }, "timeoutMs"],
        ["timeout too long", { ...base, timeoutMs: 60001, intervalSeconds: 600 }, "timeoutMs"],
        ["timeout not below interval", { ...base, intervalSeconds: 10, timeoutMs: 10000 }, "timeoutMs"],
        ["status code too low", { ...base, expectedStatusCode: 99 }, "expectedStatusCode"],
        ["status code too high", { ...base, expectedStatusCode: 600 }, "expectedStatusCode"],
        [
          "status code for tcp",
          { ...base, type: "tcp", url: "a.example:1", expectedStatusCode: 200 },
          "expectedStatusCode"
        ],
        ["threshold zero", { ...base, failureThreshold: 0 }, "failureThreshold"],
        ["threshold eleven", { ...base, failureThreshold: 11 }, "failureThreshold"],
        ["empty regions", { ...base, regions: [] }, "regions"],
        ["bad region name", { ...base, regions: ["EU West"] }, "regions"],
        ["region name too long", { ...base, regions: ["r".repeat(64)] }, "regions"],
        ["repeated region", { ...base, regions: ["eu", "eu"] }, "regions"]
      ]
      for (const [label, body, field] of cases) {
        const response = yield* sendJson("POST", "/api/v1/admin/monitors", body)
        expect(response.status, label).toBe(400)
        expect(JSON.stringify(response.body.issues), label).toContain(`"${field}"`)
      }
      const monitor = yield* client.monitors.create({ payload: { ...base, type: "http", intervalSeconds: 60 } })
      const tooLong = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, { intervalSeconds: 10 })
      expect(tooLong.status).toBe(400) // the stored 10 s time-out no longer fits
      expect(tooLong.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["timeoutMs"] }] })
      expect((yield* client.monitors.list({ query: {} })).find((m) => m.id === monitor.id)?.intervalSeconds).toBe(60)
      // An http monitor always has a status code to expect.
      const noCode = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, { expectedStatusCode: null })
      expect(noCode.status).toBe(400)
      expect(noCode.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["expectedStatusCode"] }] })
      // Region names are what PROBE_REGION allows.
      const regions = ["eu_west-2", "r".repeat(63)]
      expect((yield* client.monitors.update({ params: { id: monitor.id }, payload: { regions } })).regions).toEqual(
        regions
      )
    }))
})
