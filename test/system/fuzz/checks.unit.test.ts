/**
 * The fuzzer's judgements on answers it did not have to send for (checks.ts): deliberately wrong
 * requests must be refused naming what was wrong, headers must be as the document declares them,
 * and the service's own headers declared where it sends them. A small document of two
 * operations stands in for the service's.
 */
import { describe, expect, it } from "vitest"

import type { RawResponse } from "./checks.js"
import { expectationProblem, headerProblems, headerSyntaxProblem, makeChecker, replayProblem } from "./checks.js"
import type { Expectation } from "./deviations.js"
import { parseDocument } from "./openapi.js"
import type { FuzzRequest } from "./requests.js"

const json = (schema: object) => ({ content: { "application/json": { schema } } })
const error = json({ $ref: "#/components/schemas/Error" })
const document = parseDocument({
  openapi: "3.1.0",
  paths: {
    "/api/v1/things": {
      get: {
        operationId: "things.list",
        parameters: [{ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } }],
        responses: {
          "200": { ...json({ type: "array" }), headers: { Link: { required: false, schema: { type: "string" } } } },
          "400": error,
          "429": { ...error, headers: { "Retry-After": { required: true, schema: { type: "integer", minimum: 0 } } } }
        }
      }
    },
    "/api/v1/status": {
      get: {
        operationId: "status.summary",
        responses: {
          "200": {
            ...json({ type: "object" }),
            headers: {
              ETag: { required: true, schema: { type: "string" } },
              "Cache-Control": { required: true, schema: { type: "string", const: "public, max-age=5" } }
            }
          },
          "304": { headers: { ETag: { required: true, schema: { type: "string" } } } }
        }
      }
    }
  },
  components: {
    schemas: {
      Error: {
        type: "object",
        properties: { _tag: { type: "string" }, message: { type: "string" }, issues: { type: "array" } },
        required: ["_tag", "message"]
      }
    }
  }
})
const things = document.operations.find((op) => op.id === "things.list")!
const status = document.operations.find((op) => op.id === "status.summary")!
const check = makeChecker(document)

const answer = (status: number, headers: RawResponse["headers"] = {}, body?: unknown): RawResponse => ({
  status,
  headers: { "content-type": "application/json", date: "Sun, 29 Nov 2026 12:00:00 GMT", ...headers },
  body: Buffer.from(body === undefined ? "" : JSON.stringify(body))
})
const refusal = (...paths: Array<Array<string | number>>) =>
  answer(400, {}, {
    _tag: "HttpApiDecodeError",
    message: "The request did not match",
    issues: paths.map((path) => ({ _tag: "Unexpected", path, message: "is not a known field" }))
  })
const request = (target: string, expect?: Expectation): FuzzRequest => ({
  category: expect === undefined ? "valid" : "strict",
  credentials: "key",
  method: "GET",
  target,
  headers: {},
  body: undefined,
  expect
})
const kinds = (findings: ReadonlyArray<{ kind: string }>) => findings.map((finding) => finding.kind)

describe("a deliberately wrong request", () => {
  const unknownField: Expectation = {
    kind: "unknownField",
    what: "the unknown field recurrence.frequncy",
    path: ["recurrence", "frequncy"]
  }

  it("accepted is a finding that names what was accepted", () => {
    expect(expectationProblem(unknownField, answer(201))).toEqual({
      kind: "acceptedInvalid",
      reason: "accepted the unknown field recurrence.frequncy (201)"
    })
  })

  it("refused with 400 must name the field's whole path in an issue", () => {
    expect(expectationProblem(unknownField, refusal(["title"], ["recurrence", "frequncy"]))).toBeUndefined()
    expect(expectationProblem(unknownField, refusal(["frequncy"]))).toMatchObject({
      kind: "unnamedRefusal",
      reason: expect.stringContaining("names no issue at [\"recurrence\",\"frequncy\"] (issues at [\"frequncy\"])")
    })
    expect(expectationProblem(unknownField, answer(400, {}, { _tag: "BadRequest", message: "no" })))
      .toMatchObject({ kind: "unnamedRefusal" })
  })

  it("an array index in the path matches however the answer writes it", () => {
    const nested: Expectation = { kind: "unknownField", what: "x", path: ["items", 0, "extra"] }
    expect(expectationProblem(nested, refusal(["items", 0, "extra"]))).toBeUndefined()
  })

  it("refused otherwise says nothing either way; an If-Match that cannot hold needs no 400", () => {
    expect(expectationProblem(unknownField, answer(404))).toBeUndefined()
    expect(expectationProblem(unknownField, answer(429))).toBeUndefined()
    const stale: Expectation = { kind: "ifMatch", what: "If-Match \"x\", which cannot hold", path: undefined }
    expect(expectationProblem(stale, answer(412))).toBeUndefined()
    expect(expectationProblem(stale, answer(400, {}, { _tag: "BadRequest", message: "?" }))).toBeUndefined()
    expect(expectationProblem(stale, answer(200))).toMatchObject({ kind: "acceptedInvalid" })
  })

  it("is judged by the checker with the rest", () => {
    const badLimit: Expectation = { kind: "badQueryValue", what: "limit=abc", path: ["limit"] }
    expect(kinds(check(things, request("/api/v1/things?limit=abc", badLimit), answer(200, {}, []))))
      .toEqual(["acceptedInvalid"])
    expect(check(things, request("/api/v1/things?limit=abc", badLimit), refusal(["limit"]))).toEqual([])
  })
})

describe("the syntax of the service's headers", () => {
  it("an ETag is quoted, strong or weak", () => {
    expect(headerSyntaxProblem("etag", "\"abc_-1\"", "/")).toBeUndefined()
    expect(headerSyntaxProblem("etag", "W/\"abc\"", "/")).toBeUndefined()
    expect(headerSyntaxProblem("etag", "abc", "/")).toContain("not a quoted entity tag")
    expect(headerSyntaxProblem("etag", "\"a b\"", "/")).toContain("not a quoted entity tag")
  })

  it("Retry-After is whole seconds", () => {
    expect(headerSyntaxProblem("retry-after", "30", "/")).toBeUndefined()
    expect(headerSyntaxProblem("retry-after", "1.5", "/")).toContain("not whole seconds")
    expect(headerSyntaxProblem("retry-after", "Sun, 29 Nov 2026 12:00:00 GMT", "/")).toContain("not whole seconds")
  })

  it("a Link names the next page of the path asked, relative", () => {
    const path = "/api/v1/admin/monitors"
    expect(headerSyntaxProblem("link", "</api/v1/admin/monitors?limit=2&cursor=eyJ>; rel=\"next\"", path))
      .toBeUndefined()
    expect(headerSyntaxProblem("link", "<http://host/api/v1/admin/monitors?cursor=x>; rel=\"next\"", path))
      .toContain("is not <…>; rel=\"next\"")
    expect(headerSyntaxProblem("link", "</api/v1/admin/monitors?cursor=x>; rel=\"prev\"", path))
      .toContain("is not <…>; rel=\"next\"")
    expect(headerSyntaxProblem("link", "</api/v1/admin/webhooks?cursor=x>; rel=\"next\"", path))
      .toBe("Link names /api/v1/admin/webhooks, not the path asked (/api/v1/admin/monitors)")
  })
})

describe("headers against the document", () => {
  const conforms = () => true

  it("a header declared required must be there", () => {
    expect(check(status, request("/api/v1/status"), answer(200, { etag: "\"a\"" }, {}))).toEqual([
      { kind: "header", reason: "Cache-Control is required on 200 but missing" }
    ])
    expect(check(status, request("/api/v1/status"), answer(304, { etag: "\"a\"" }))).toEqual([])
  })

  it("a declared header must match its schema and its syntax", () => {
    const headers = { etag: "\"a\"", "cache-control": "no-store" }
    expect(check(status, request("/api/v1/status"), answer(200, headers, {}))).toEqual([
      { kind: "header", reason: "Cache-Control \"no-store\" does not match its declared schema" }
    ])
    const unquoted = { etag: "a", "cache-control": "public, max-age=5" }
    expect(kinds(check(status, request("/api/v1/status"), answer(200, unquoted, {})))).toEqual(["header"])
  })

  it("an integer header is read as a number", () => {
    const limited = (retryAfter: string) =>
      check(things, request("/api/v1/things"), answer(429, { "retry-after": retryAfter }, { _tag: "T", message: "m" }))
    expect(limited("30")).toEqual([])
    expect(kinds(limited("-1"))).toEqual(["errorShape", "header"])
  })

  it("the service's own headers where the document does not declare them are findings; a transport's are not", () => {
    const findings = check(
      things,
      request("/api/v1/things"),
      answer(200, { etag: "\"a\"", "set-cookie": ["a=b"], "x-request-id": "1", vary: "Origin" }, [])
    )
    expect(findings.map((finding) => [finding.kind, finding.header])).toEqual([
      ["undocumentedHeader", "etag"],
      ["undocumentedHeader", "set-cookie"]
    ])
    expect(findings[0]!.reason).toBe("etag: \"\\\"a\\\"\" on things.list 200, which declares no etag")
  })

  it("every value of a repeated header is checked", () => {
    const declared = { "set-cookie": { name: "Set-Cookie", required: true, schema: { type: "string" } } }
    const onlyShort = (_: unknown, value: string) => value.length < 5
    const response = answer(200, { "set-cookie": ["a=1", "session=long"] })
    expect(headerProblems("auth.signIn", declared, response, "/", onlyShort)).toEqual([
      { kind: "header", reason: "Set-Cookie \"session=long\" does not match its declared schema" }
    ])
  })

  it("a status the document does not list is a finding of its own, not of its headers", () => {
    expect(headerProblems("things.list", undefined, answer(418, { etag: "x" }), "/", conforms)).toEqual([])
  })

  it("a 304 has no body, whatever the document says", () => {
    const response = { ...answer(304, { etag: "\"a\"" }), body: Buffer.from("{}") }
    expect(check(status, request("/api/v1/status"), response)).toEqual([{ kind: "schema", reason: "304 with a body" }])
  })
})

describe("a retry with the same Idempotency-Key", () => {
  const first = answer(201, {}, { id: "1" })

  it("replays the first answer, marked", () => {
    expect(replayProblem(first, answer(201, { "idempotent-replayed": "true" }, { id: "1" }))).toBeUndefined()
  })

  it("that runs again, or is not marked, is a finding", () => {
    expect(replayProblem(first, answer(201, { "idempotent-replayed": "true" }, { id: "2" })))
      .toEqual({ kind: "replay", reason: "the retry's body is not the first's" })
    expect(replayProblem(first, answer(201, {}, { id: "1" })))
      .toEqual({ kind: "replay", reason: "the retry has no Idempotent-Replayed: true" })
    expect(replayProblem(first, answer(422))).toEqual({
      kind: "replay",
      reason: "the retry answered 422, the first request 201"
    })
  })

  it("after a first that failed says nothing", () => {
    expect(replayProblem(answer(404), answer(404))).toBeUndefined()
  })
})
