/**
 * Request bodies over the full stack: the API reads JSON of at most 1 MB. A chunked body past
 * the limit is 413 and reaches no handler; a form or plain-text post to a JSON endpoint is 415
 * however the URL is spelt; one-click unsubscribe and the status page's own forms keep taking
 * form bodies; and the OpenAPI document lists both answers.
 */
import { request } from "node:http"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { adminEmail, adminPassword, adminVariables } from "../support/Auth.js"
import { startLiveStack } from "../support/LiveStack.js"
import { ApiClient, SuiteApiKey } from "../support/TestServer.js"

/** The most the service reads of a request body: 1 MB (docs/api.md). */
const maxBodyBytes = 1024 * 1024

let stack: Awaited<ReturnType<typeof startLiveStack>>
let bearer: Record<string, string>

beforeAll(async () => {
  stack = await startLiveStack(adminVariables)
  bearer = { authorization: `Bearer ${await stack.run(SuiteApiKey)}` }
})

afterAll(async () => {
  await stack?.dispose()
})

interface Answer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: any
}

/**
 * Sends `body` to `path` and reads the answer. `chunked` sends it in 64 kB chunks without a
 * Content-Length, as a client streaming a body does.
 */
const send = (
  method: string,
  path: string,
  body: string,
  headers: Record<string, string>,
  chunked = false
) =>
  new Promise<Answer>((resolve, reject) => {
    const bytes = Buffer.from(body)
    const req = request({
      host: "127.0.0.1",
      port: Number(new URL(stack.baseUrl).port),
      method,
      path,
      headers: { ...headers, ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": bytes.length }) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () =>
        resolve({
          status: res.statusCode!,
          contentType: res.headers["content-type"],
          body: res.headers["content-type"]?.includes("json") ? JSON.parse(text) : text
        }))
    })
    req.on("error", reject)
    if (chunked) { for (let at = 0; at < bytes.length; at += 65_536) req.write(bytes.subarray(at, at + 65_536)) }
    req.end(chunked ? undefined : bytes)
  })

const json = { "content-type": "application/json" }
const form = { "content-type": "application/x-www-form-urlencoded" }

/** A JSON object padded with trailing spaces to `size` bytes: valid JSON of any size. */
const padded = (value: object, size: number) => {
  const text = JSON.stringify(value)
  return text + " ".repeat(size - Buffer.byteLength(text))
}

const componentNames = () =>
  stack.run(Effect.flatMap(ApiClient, (client) => client.components.list({ query: {} }))).then((list) =>
    list.map((c) => c.name)
  )

describe("request bodies", () => {
  it("answers 413 to a chunked body past 1 MB, and no handler sees any of it", async () => {
    const giant = padded({ name: "Chunked giant" }, maxBodyBytes + 100_000)
    const answer = await send("POST", "/api/v1/admin/components", giant, { ...json, ...bearer }, true)
    expect(answer).toMatchObject({
      status: 413,
      body: { _tag: "PayloadTooLarge", message: "The request body is over 1 MB, the most the service reads" }
    })
    expect(await componentNames()).not.toContain("Chunked giant")
  })

  it("reads a chunked body within 1 MB, and a body of exactly 1 MB with a length", async () => {
    const chunked = padded({ name: "Chunked within" }, maxBodyBytes - 1)
    expect((await send("POST", "/api/v1/admin/components", chunked, { ...json, ...bearer }, true)).status).toBe(201)
    const atLimit = padded({ name: "At the limit" }, maxBodyBytes)
    expect((await send("POST", "/api/v1/admin/components", atLimit, { ...json, ...bearer })).status).toBe(201)
    expect(await componentNames()).toEqual(expect.arrayContaining(["Chunked within", "At the limit"]))
  })

  it("answers 415 to form and plain-text posts to JSON endpoints, however the URL is spelt", async () => {
    const unsupported = {
      status: 415,
      body: { _tag: "UnsupportedMediaType", message: "The API takes JSON only: send the body as application/json" }
    }
    const credentials = new URLSearchParams({ email: adminEmail, password: adminPassword }).toString()
    expect(await send("POST", "/api/v1/auth/signin", credentials, form)).toMatchObject(unsupported)
    const subscriber = new URLSearchParams({ email: "form-post@example.com" }).toString()
    for (const path of ["/api/v1/subscribe", "/API/v1//subscribe/", "/%61pi/v1/subscribe"]) {
      expect(await send("POST", path, subscriber, form), path).toMatchObject(unsupported)
    }
    const asText = JSON.stringify({ email: "text-post@example.com" })
    expect(await send("POST", "/api/v1/subscribe", asText, { "content-type": "text/plain" })).toMatchObject(unsupported)
    const multipart = "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--x--\r\n"
    expect(
      await send("POST", "/api/v1/admin/components", multipart, {
        "content-type": "multipart/form-data; boundary=x",
        ...bearer
      })
    ).toMatchObject(unsupported)
    expect(await send("DELETE", "/api/v1/admin/components/none", "x", { "content-type": "text/plain", ...bearer }))
      .toMatchObject(unsupported)
    // JSON with a charset is read. A body without any Content-Type is not: another site's page
    // can send one (a Blob without a type) with no preflight.
    expect(
      (await send("POST", "/api/v1/subscribe", asText, { "content-type": "application/json; charset=utf-8" })).status
    )
      .toBe(202)
    const untyped = JSON.stringify({ email: "untyped-post@example.com" })
    expect(await send("POST", "/api/v1/subscribe", untyped, {})).toMatchObject(unsupported)
    expect(
      await send("POST", "/api/v1/auth/signin", JSON.stringify({ email: adminEmail, password: adminPassword }), {})
    )
      .toMatchObject(unsupported)
    // A request without a body needs no Content-Type.
    expect((await send("POST", "/api/v1/admin/webhooks/none/test", "", bearer)).status).toBe(404)
    // Nothing was signed in or subscribed by a form.
    const subscribers = await stack.run(Effect.flatMap(ApiClient, (client) => client.subscribers.list({ query: {} })))
    expect(subscribers.map((s) => s.email)).toEqual(["text-post@example.com"])
  })

  it("keeps taking the form bodies of one-click unsubscribe and of the status page's forms", async () => {
    const oneClick = "/api/v1/unsubscribe/one-click?email=nobody%40example.com&token=nothing"
    expect(await send("POST", oneClick, "List-Unsubscribe=One-Click", form)).toMatchObject({
      status: 404,
      body: { _tag: "NotFound" }
    })
    const multipart = "--x\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--x--\r\n"
    expect(await send("POST", oneClick, multipart, { "content-type": "multipart/form-data; boundary=x" }))
      .toMatchObject({ status: 404, body: { _tag: "NotFound" } })
    const page = await send("POST", "/subscribe", "email=page-form%40example.com", form)
    expect(page.status).toBe(200)
    expect(page.contentType).toContain("text/html")
    const subscribers = await stack.run(Effect.flatMap(ApiClient, (client) => client.subscribers.list({ query: {} })))
    expect(subscribers.map((s) => s.email)).toContain("page-form@example.com")
  })

  it("documents 413 on every operation and 415 on every one but one-click unsubscribe and the push URL", async () => {
    const document = await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()
    const operations = Object.entries<any>(document.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(([method, operation]) => ({ name: `${method} ${path}`, operation }))
    )
    expect(operations.length).toBeGreaterThan(50)
    for (const { name, operation } of operations) {
      const documented = (status: string) => JSON.stringify(operation.responses[status] ?? null)
      expect(documented("413"), name).toContain("#/components/schemas/PayloadTooLarge")
      // Neither reads a body: a mail client posts a form to the one, a job posts anything to the other.
      const noBody = [
        "post /api/v1/unsubscribe/one-click",
        "get /api/v1/push/{pushToken}",
        "post /api/v1/push/{pushToken}"
      ]
      if (noBody.includes(name)) expect(documented("415"), name).toBe("null")
      else expect(documented("415"), name).toContain("#/components/schemas/UnsupportedMediaType")
    }
  })
})
