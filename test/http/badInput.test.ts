/**
 * Bad input the property-based fuzzer (test/system/fuzz) found answered outside the contract:
 * each must be a 4xx with the `{ _tag, message }` body, and the OpenAPI document must describe
 * what the service answers.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

import { sendJson, TestServer } from "../support/TestServer.js"

/** Sends `body` under `contentType` (not JSON) and returns status and parsed body. */
const sendAs = (method: "POST" | "PUT", url: string, body: string, contentType: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.make(method)(url).pipe(HttpClientRequest.bodyText(body, contentType))
    )
    return {
      status: response.status,
      contentType: response.headers["content-type"],
      body: JSON.parse(yield* response.text)
    }
  }).pipe(Effect.scoped)

const unreadable = { _tag: "BadRequest", message: "The request could not be read: the body must be valid JSON" }

it.layer(TestServer())("bad input", (it) => {
  it.effect("a multipart body, broken or not, is a 415 UnsupportedMediaType, not a 500", () =>
    Effect.gen(function*() {
      const unsupported = { status: 415, body: { _tag: "UnsupportedMediaType" } }
      const broken = yield* sendAs("POST", "/api/v1/admin/components", "name=x", "multipart/form-data; boundary=x")
      expect(broken).toMatchObject(unsupported)
      const form = "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--x--\r\n"
      expect(yield* sendAs("POST", "/api/v1/admin/components", form, "multipart/form-data; boundary=x")).toMatchObject(
        unsupported
      )
      expect(yield* sendAs("POST", "/api/v1/subscribe", "{", "multipart/form-data")).toMatchObject(unsupported)
    }))

  it.effect("a refused 1 MB value is not echoed back at length: large error bodies have their messages shortened", () =>
    Effect.gen(function*() {
      const huge = "x".repeat(1_000_000)
      const response = yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "big",
        url: "https://example.com/hook",
        type: huge
      })
      expect(response.status).toBe(400)
      expect(JSON.stringify(response.body).length).toBeLessThan(20_000)
      expect(response.body._tag).toBe("HttpApiDecodeError")
      // The messages say what was expected, never the value refused (src/api/IssueMessages.ts);
      // ErrorBodies would cut any message to 1,000 characters ("… (shortened)") besides.
      expect(response.body.message).not.toContain("x".repeat(1_000))
      expect(response.body.issues).toEqual([
        { _tag: "Type", path: ["type"], message: expect.stringMatching(/^must be one of .*generic/) }
      ])
    }))

  it.effect("one-click unsubscribe still takes the multipart body RFC 8058 allows", () =>
    Effect.gen(function*() {
      const form = "--x\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--x--\r\n"
      const response = yield* sendAs(
        "POST",
        "/api/v1/unsubscribe/one-click?email=nobody%40example.com&token=nothing",
        form,
        "multipart/form-data; boundary=x"
      )
      expect(response.status).toBe(404)
      expect(response.body._tag).toBe("NotFound")
    }))

  it.effect("a request line over Node's 16 KB limit is a JSON 431", () =>
    Effect.gen(function*() {
      const response = yield* sendJson("GET", `/api/v1/status?q=${"x".repeat(17_000)}`)
      expect(response.status).toBe(431)
      expect(response.body).toEqual({
        _tag: "RequestHeaderFieldsTooLarge",
        message: "The request line or headers are too large"
      })
    }))

  it.effect("a component without displayOrder after one at the largest integer ties for last instead of a 500", () =>
    Effect.gen(function*() {
      const top = yield* sendJson("POST", "/api/v1/admin/components", { name: "at the top", displayOrder: 2147483647 })
      expect(top.status).toBe(201)
      const next = yield* sendJson("POST", "/api/v1/admin/components", { name: "after it" })
      expect(next.status).toBe(201)
      expect(next.body.displayOrder).toBe(2147483647)
    }))

  it.effect("the OpenAPI document lists BadRequest under every 400 and every query parameter", () =>
    Effect.gen(function*() {
      const { body: document } = yield* sendJson("GET", "/api/v1/openapi.json")
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          const refs = JSON.stringify(operation.responses["400"])
          expect(refs, `${method} ${path}`).toContain("#/components/schemas/BadRequest")
        }
      }
      const names = (path: string) =>
        document.paths[path].get.parameters.filter((p: { in: string }) => p.in !== "header").map((
          p: { name: string }
        ) => p.name)
      expect(names("/api/v1/status/uptime")).toEqual(["period"])
      expect(names("/api/v1/admin/monitors/{id}/results")).toEqual(["id", "limit", "cursor"])
      // An unreadable body is answered as documented.
      const malformed = yield* sendJson("POST", "/api/v1/admin/components", "{")
      expect(malformed).toMatchObject({ status: 400, body: unreadable })
    }))
})
