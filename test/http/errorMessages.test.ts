/**
 * What a client reads when the API refuses a request (docs/api.md, "Errors"): one sentence in
 * `message`, one issue per offending field saying what was expected, and strict bodies and
 * queries (an unknown field or query parameter is 400 naming it), over the real server.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

const statuses = "operational, degraded, partial_outage, major_outage, maintenance"

/** A 400 `HttpApiDecodeError` in the contract's shape, no message a schema's tree. */
const expectDecodeError = (response: { status: number; body: any }, label = "") => {
  expect(response.status, label).toBe(400)
  expect(response.body._tag, label).toBe("HttpApiDecodeError")
  expect(typeof response.body.message, label).toBe("string")
  for (const issue of response.body.issues) {
    expect(Object.keys(issue).sort(), label).toEqual(["_tag", "message", "path"])
    expect(Array.isArray(issue.path), label).toBe(true)
  }
  expect(JSON.stringify(response.body), label).not.toMatch(/Encoded side|└|Expected |<->/)
  return response.body as { message: string; issues: Array<{ _tag: string; path: Array<unknown>; message: string }> }
}

const window = { title: "Upgrade", scheduledStart: "2031-01-01T00:00:00Z", scheduledEnd: "2031-01-01T01:00:00Z" }

it.layer(TestServer())("error messages", (it) => {
  it.effect("a bad enum value is one issue saying the allowed values, and the message is one sentence", () =>
    Effect.gen(function*() {
      const created = yield* sendJson("POST", "/api/v1/admin/components", { name: "Checkout" })
      expect(created.status).toBe(201)
      const refused = expectDecodeError(
        yield* sendJson("PATCH", `/api/v1/admin/components/${created.body.id}/status`, { status: "on_fire" })
      )
      expect(refused.issues).toEqual([{ _tag: "Type", path: ["status"], message: `must be one of ${statuses}` }])
      expect(refused.message).toBe(`The request body is invalid: status must be one of ${statuses}.`)
    }))

  it.effect("a missing field is required; a wrong type says what it must be; every field is named at once", () =>
    Effect.gen(function*() {
      const missing = expectDecodeError(yield* sendJson("POST", "/api/v1/admin/components", { description: "x" }))
      expect(missing.issues).toEqual([{ _tag: "Missing", path: ["name"], message: "is required" }])
      expect(missing.message).toBe("The request body is invalid: name is required.")

      const wrong = expectDecodeError(
        yield* sendJson("POST", "/api/v1/admin/webhooks", { name: 5, url: "not a url", type: "generic" })
      )
      expect(wrong.issues).toEqual([
        { _tag: "Type", path: ["name"], message: "must be a non-empty string of at most 200 characters" },
        { _tag: "Refinement", path: ["url"], message: "must be an absolute http(s) URL" }
      ])
      expect(wrong.message).toBe(
        "2 fields are invalid: name must be a non-empty string of at most 200 characters; " +
          "url must be an absolute http(s) URL."
      )

      const body = expectDecodeError(yield* sendJson("POST", "/api/v1/admin/components", [1, 2]))
      expect(body).toEqual({
        _tag: "HttpApiDecodeError",
        message: "The request body must be an object.",
        issues: [{ _tag: "Type", path: [], message: "must be an object" }]
      })
    }))

  it.effect("an unknown body field is 400 naming it, with the field meant; nested objects are strict too", () =>
    Effect.gen(function*() {
      const typo = expectDecodeError(
        yield* sendJson("POST", "/api/v1/admin/components", { name: "x", ispublic: true })
      )
      expect(typo.issues).toEqual([
        { _tag: "Unexpected", path: ["ispublic"], message: "is not a known field (did you mean isPublic?)" }
      ])
      expect(typo.message).toBe("The request body is invalid: ispublic is not a known field (did you mean isPublic?).")
      // Nothing was created.
      const listed = yield* sendJson("GET", "/api/v1/admin/components")
      const names = (Array.isArray(listed.body) ? listed.body : listed.body.items).map((c: { name: string }) => c.name)
      expect(names).not.toContain("x")

      const nested = expectDecodeError(
        yield* sendJson("POST", "/api/v1/admin/maintenance", {
          ...window,
          recurrence: { frequency: "weekly", interval: 1, every: "monday" }
        })
      )
      expect(nested.issues).toEqual([{
        _tag: "Unexpected",
        path: ["recurrence", "every"],
        message: "is not a known field"
      }])
      expect(nested.message).toBe("The request body is invalid: recurrence.every is not a known field.")

      // On an update too, and on a body that may also be null.
      const incident = yield* sendJson("POST", "/api/v1/admin/incidents", { title: "Down", message: "Looking" })
      expect(incident.status).toBe(201)
      const resolve = expectDecodeError(
        yield* sendJson("PATCH", `/api/v1/admin/incidents/${incident.body.id}/resolve`, { mesage: "Fixed" })
      )
      expect(resolve.issues).toEqual([
        { _tag: "Unexpected", path: ["mesage"], message: "is not a known field (did you mean message?)" }
      ])
      expect((yield* sendJson("GET", `/api/v1/admin/incidents/${incident.body.id}`)).body.status).toBe("investigating")
    }))

  it.effect("query parameters: a bad value says what it must be, an unknown one is 400 on every API endpoint", () =>
    Effect.gen(function*() {
      const limit = expectDecodeError(yield* sendJson("GET", "/api/v1/status/incidents?limit=abc"))
      expect(limit.issues).toEqual([
        {
          _tag: expect.any(String),
          path: ["limit"],
          message: expect.stringMatching(/^must be an integer from 1 to \d+$/)
        }
      ])
      expect(limit.message).toMatch(/^The query is invalid: limit must be an integer from 1 to \d+\.$/)

      // An endpoint with a query schema.
      const period = expectDecodeError(yield* sendJson("GET", "/api/v1/status/uptime?period=24h&perod=7d"))
      expect(period.issues).toEqual([
        { _tag: "Unexpected", path: ["perod"], message: "is not a known query parameter (did you mean period?)" }
      ])
      expect(period.message).toBe("The query is invalid: perod is not a known query parameter (did you mean period?).")

      // Endpoints that declare no query, public and admin, read or write.
      for (
        const [method, url] of [
          ["GET", "/api/v1/status?page=2"],
          ["GET", "/api/v1/status/components?_=1712345678"],
          ["GET", "/api/v1/admin/overview?page=2"],
          ["POST", "/api/v1/admin/components?page=2"]
        ] as const
      ) {
        const refused = expectDecodeError(
          yield* sendJson(method, url, method === "POST" ? { name: "never made" } : undefined),
          url
        )
        const name = new URL(url, "http://x").searchParams.keys().next().value
        expect(refused.issues, url).toEqual([{
          _tag: "Unexpected",
          path: [name],
          message: "is not a known query parameter"
        }])
        expect(refused.message, url).toBe(`The query is invalid: ${name} is not a known query parameter.`)
      }
      const two = expectDecodeError(yield* sendJson("GET", "/api/v1/status/maintenance?a=1&b=2"))
      expect(two.message).toBe(
        "2 query parameters are invalid: a is not a known query parameter; b is not a known query parameter."
      )
    }))

  it.effect("credentials are judged first: without them an admin endpoint is 401, whatever its query or body", () =>
    Effect.gen(function*() {
      for (
        const [method, url, body] of [
          ["GET", "/api/v1/admin/overview?page=2", undefined],
          ["GET", "/api/v1/admin/monitors/x/results?limit=abc&x=1", undefined],
          ["POST", "/api/v1/admin/components", { ispublic: true }]
        ] as const
      ) {
        const response = yield* sendAnonymous(method, url, body)
        expect(response.status, url).toBe(401)
        expect(response.body._tag, url).toBe("Unauthorized")
      }
    }))

  it.effect("the feeds, the status page, the badge and the widget take any query (cache busters)", () =>
    Effect.gen(function*() {
      for (
        const url of ["/api/v1/status/rss?_=1", "/api/v1/status/atom?utm_source=reader", "/?_=1", "/badge.svg?x=1"]
      ) {
        const response = yield* sendJson("GET", url)
        expect(response.status, url).toBe(200)
      }
      expect((yield* sendJson("GET", "/widget.json?_=1")).status).toBe(200)
      expect((yield* sendJson("GET", "/healthz?probe=1")).status).toBe(200)
    }))

  it.effect("a refusal never quotes the value refused, however large", () =>
    Effect.gen(function*() {
      const huge = "x".repeat(200_000)
      const refused = expectDecodeError(
        yield* sendJson("POST", "/api/v1/admin/webhooks", { name: huge, url: huge, type: huge, [huge]: huge })
      )
      expect(JSON.stringify(refused).length).toBeLessThan(2_000)
      expect(refused.issues.map((issue) => issue._tag).sort()).toEqual([
        "Refinement",
        "Refinement",
        "Type",
        "Unexpected"
      ])
    }))

  it.effect("an endpoint that takes no body refuses one with fields, naming them; empty, {} and null pass", () =>
    Effect.gen(function*() {
      const component = yield* sendJson("POST", "/api/v1/admin/components", { name: "Bodiless" })
      const monitor = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: component.body.id,
        type: "http",
        url: "http://127.0.0.1:9/"
      })
      const pause = `/api/v1/admin/monitors/${monitor.body.id}/pause`
      const refused = expectDecodeError(yield* sendJson("POST", pause, { force: true }), "fields")
      expect(refused.issues).toEqual([{ _tag: "Unexpected", path: ["force"], message: expect.any(String) }])
      expect(expectDecodeError(yield* sendJson("POST", pause, [1]), "a list").issues[0]!.path).toEqual([])
      expect((yield* sendJson("GET", `/api/v1/admin/monitors/${monitor.body.id}`)).body.paused).toBe(false)
      for (const body of [undefined, {}, null]) {
        expect((yield* sendJson("POST", pause, body)).status, JSON.stringify(body)).toBe(200)
      }
    }))
})
