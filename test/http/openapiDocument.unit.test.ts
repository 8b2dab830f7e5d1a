/**
 * What the OpenAPI document declares beyond the generator's own output (src/api/OpenApiDocument.ts,
 * docs/api.md "The OpenAPI document"): the version of package.json and the servers, the response
 * headers the server sends (public reads and their 304, paged lists, 429s, cookies), integer
 * query parameters with their bounds, and the limits of names, URLs and time zones. Built from
 * the API declaration alone, as the server builds it.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { OpenApi } from "effect/http-api"

import { Api } from "../../src/api/Api.js"
import { HttpUrl, Name } from "../../src/domain/Fields.js"
import { adminPageBounds } from "../../src/domain/Page.js"
import { publicMaxAge } from "../../src/public/PublicResponses.js"
import { parseDocument } from "../system/fuzz/openapi.js"

const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"))
const spec = OpenApi.fromApi(Api)

interface Header {
  readonly schema: Record<string, unknown>
  readonly description?: string
}
interface Response {
  readonly description: string
  readonly content?: Record<string, unknown>
  readonly headers?: Record<string, Header>
}
interface Operation {
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<OpenApi.OpenAPISpecParameter>
  readonly responses: Record<string, Response>
}

const operations: ReadonlyArray<Operation> = Object.entries(spec.paths).flatMap(([path, item]) =>
  (["get", "put", "post", "delete", "patch"] as const).flatMap((method) => {
    const operation = item[method]
    return operation === undefined
      ? []
      : [{ ...operation, method, path, responses: operation.responses as unknown as Record<string, Response> }]
  })
)

const operation = (id: string) => {
  const found = operations.find((op) => op.operationId === id)
  if (found === undefined) throw new Error(`no operation ${id}`)
  return found
}

const headersOf = (id: string, status: string) => Object.keys(operation(id).responses[status]?.headers ?? {})
const parameter = (id: string, name: string) => operation(id).parameters.find((p) => p.name === name)
const schemas = spec.components.schemas as Record<string, { properties?: Record<string, Record<string, unknown>> }>

describe("the OpenAPI document", () => {
  it("takes its version from package.json, names the project, its license and a server on any host", () => {
    expect(spec.info.version).toBe(packageJson.version)
    expect(spec.info.license).toEqual({ name: packageJson.license, identifier: packageJson.license })
    expect((spec.info as { contact?: { name?: string } }).contact?.name).toBe(packageJson.name)
    expect(spec.servers).toEqual([{ url: "/", description: expect.any(String) }])
  })

  it("declares ETag, Cache-Control and Vary on every public read, its 304 and the If-None-Match that asks for it", () => {
    const publicReads = operations.filter((op) => op.path === "/api/v1/status" || op.path.startsWith("/api/v1/status/"))
    expect(publicReads.length).toBeGreaterThanOrEqual(9)
    for (const op of publicReads) {
      for (const status of ["200", "304"]) {
        expect(headersOf(op.operationId, status), `${op.operationId} ${status}`).toEqual(
          expect.arrayContaining(["ETag", "Cache-Control", "Vary"])
        )
      }
      expect(op.responses["304"]?.content, op.operationId).toBeUndefined()
      expect(parameter(op.operationId, "If-None-Match")).toMatchObject({ in: "header", required: false })
    }
    // As src/public/PublicResponses.ts writes them.
    const headers = operation("status.summary").responses["200"]!.headers!
    expect(headers["Cache-Control"]!.schema.const).toBe(`public, max-age=${publicMaxAge}`)
    expect(headers["Vary"]!.schema.const).toBe("Accept-Encoding")
    // Not on the admin side, whose reads have no 304.
    expect(operation("components.list").responses["304"]).toBeUndefined()
  })

  it("declares Link on every paged list and nowhere else", () => {
    const withLink = operations.filter((op) => headersOf(op.operationId, "200").includes("Link")).map((op) =>
      op.operationId
    )
    const paged = operations.filter((op) =>
      op.method === "get" && op.parameters.some((p) => p.in === "query" && p.name === "cursor")
    ).map((op) => op.operationId)
    expect(paged.length).toBeGreaterThanOrEqual(12)
    expect(withLink.sort()).toEqual([...paged, "status.incidents", "pageStatus.incidents"].sort())
  })

  it("declares Retry-After on every 429 and Set-Cookie where cookies are set", () => {
    const limited = operations.filter((op) => op.responses["429"] !== undefined)
    expect(limited.map((op) => op.operationId).sort()).toEqual([
      "auth.acceptInvitation",
      "auth.changePassword",
      "auth.inspectInvitation",
      "auth.signIn",
      "events.stream",
      "push.get",
      "push.post",
      "subscriptions.subscribe"
    ])
    for (const op of limited) expect(headersOf(op.operationId, "429"), op.operationId).toContain("Retry-After")
    expect(headersOf("auth.signIn", "200")).toContain("Set-Cookie")
    expect(headersOf("auth.signOut", "204")).toContain("Set-Cookie")
    expect(headersOf("auth.acceptInvitation", "200")).toContain("Set-Cookie")
    expect(headersOf("auth.changePassword", "204")).toContain("Set-Cookie")
    expect(headersOf("auth.revokeSession", "204")).toContain("Set-Cookie")
  })

  it("keeps what the other transforms declare: ETag and If-Match of the admin resources, Idempotency-Key", () => {
    expect(headersOf("components.update", "200")).toContain("ETag")
    expect(parameter("components.update", "If-Match")).toBeDefined()
    expect(parameter("components.create", "Idempotency-Key")).toBeDefined()
  })

  it("shows integer query parameters as integers with their bounds, default and description", () => {
    expect(parameter("components.list", "limit")).toMatchObject({
      in: "query",
      required: false,
      description: expect.stringContaining(`1 to ${adminPageBounds.max}`),
      schema: { type: "integer", minimum: 1, maximum: adminPageBounds.max, default: adminPageBounds.fallback }
    })
    expect(parameter("monitors.results", "limit")?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 500 })
    expect(parameter("status.incidents", "limit")?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 })
    expect(parameter("status.incidents", "offset")?.schema).toMatchObject({ type: "integer", minimum: 0 })
    // No query parameter is left as text that looks like a number.
    const numericText = operations.flatMap((op) =>
      op.parameters.filter((p) => p.in === "query" && (p.schema as { pattern?: string }).pattern?.includes("\\d"))
        .map((p) => `${op.operationId} ${p.name}`)
    )
    expect(numericText).toEqual([])
  })

  it("shows the limits of names, URLs and time zones that the server enforces", () => {
    expect(schemas["CreateComponent"]?.properties?.["name"]).toMatchObject({ maxLength: 200, minLength: 1 })
    expect(schemas["CreateIncident"]?.properties?.["title"]).toMatchObject({ maxLength: 200, minLength: 1 })
    expect(schemas["HttpUrl"]).toMatchObject({ type: "string", format: "uri", maxLength: 2048 })
    expect(new RegExp(String((schemas["HttpUrl"] as { pattern: string }).pattern)).test("https://example.com")).toBe(
      true
    )
    expect(schemas["TimeZone"]).toMatchObject({ type: "string", pattern: expect.any(String) })
    expect(schemas["UpdateMaintenance"]?.properties?.["recurrence"]).toMatchObject({
      readOnly: true,
      description: expect.stringContaining("Cannot be changed")
    })
  })

  it("can be read by the system suite's fuzzer", () => {
    const document = parseDocument(JSON.parse(JSON.stringify(spec)))
    expect(document.operations.length).toBe(operations.length)
    const summary = document.operations.find((op) => op.id === "status.summary")!
    expect(summary.responses["304"]).toEqual({ content: {} })
  })
})

describe("the limits the document shows", () => {
  const decode = (schema: Schema.Codec<unknown, unknown>, input: unknown) => {
    const result = Schema.decodeUnknownResult(schema)(input)
    return Result.isSuccess(result) ? { ok: result.success } : { refused: result.failure.message }
  }

  it("a name is checked as sent, then trimmed; blank is refused after trimming", () => {
    const name = Name(10) as unknown as Schema.Codec<unknown, unknown>
    expect(decode(name, "  Status  ")).toEqual({ ok: "Status" })
    expect(decode(name, "x".repeat(10))).toEqual({ ok: "x".repeat(10) })
    expect(decode(name, "x".repeat(11))).toEqual({ refused: "must be at most 10 characters" })
    // Padded beyond the limit: refused, though it would fit once trimmed.
    expect(decode(name, `x${" ".repeat(10)}`)).toEqual({ refused: "must be at most 10 characters" })
    expect(decode(name, "")).toEqual({ refused: "must not be empty" })
    expect(decode(name, "   ")).toEqual({ refused: "must not be empty" })
  })

  it("a URL is absolute http(s)", () => {
    const url = HttpUrl as unknown as Schema.Codec<unknown, unknown>
    expect(decode(url, "https://example.com/hook")).toEqual({ ok: "https://example.com/hook" })
    expect(decode(url, "ftp://example.com")).toEqual({ refused: "must be an http(s) URL" })
    expect(decode(url, "/relative")).toEqual({ refused: "must be an absolute http(s) URL" })
  })
})
