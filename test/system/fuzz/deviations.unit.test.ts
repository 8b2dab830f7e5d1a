/**
 * The deliberately wrong requests of the fuzzer's `strict` category (deviations.ts, requests.ts)
 * are wrong in exactly the way their expectation says, and only where the document closes an
 * object; checked on small schemas and on the service's own document, built from the API
 * declaration as the server builds it.
 */
import { OpenApi } from "effect/http-api"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"

import { Api } from "../../../src/api/Api.js"
import {
  badValuesOf,
  closedObjects,
  failingIfMatch,
  malformedIdempotencyKey,
  nearMisses,
  roller,
  tamperedCursor,
  unknownParameter,
  withUnknownField
} from "./deviations.js"
import type { JsonSchema } from "./openapi.js"
import { parseDocument } from "./openapi.js"
import { requestArb } from "./requests.js"
import type { Context } from "./values.js"
import { toJsonText } from "./values.js"

const schemas: Record<string, JsonSchema> = {
  Recurrence: {
    type: "object",
    properties: { frequency: { type: "string" }, interval: { type: "integer" } },
    additionalProperties: false
  },
  Window: {
    type: "object",
    properties: {
      title: { type: "string" },
      recurrence: { anyOf: [{ $ref: "#/components/schemas/Recurrence" }, { type: "null" }] },
      headers: { type: "object", additionalProperties: { type: "string" } },
      steps: { type: "array", items: { $ref: "#/components/schemas/Recurrence" } }
    },
    additionalProperties: false
  }
}
const resolve = (schema: JsonSchema): JsonSchema =>
  typeof schema.$ref === "string" ? resolve(schemas[schema.$ref.split("/").pop()!]!) : schema
const window = { $ref: "#/components/schemas/Window" }
const dice = fc.array(fc.nat(), { minLength: 1, maxLength: 12 })

describe("unknown body fields", () => {
  it("near misses are what clients send, never the name itself", () => {
    expect(nearMisses("isPublic")).toEqual(expect.arrayContaining(["ispublic", "is_public"]))
    expect(nearMisses("limit")).toEqual(expect.arrayContaining(["liit", "limmit", "limits"]))
    for (const name of ["isPublic", "limit", "id", "x"]) expect(nearMisses(name)).not.toContain(name)
  })

  it("go only in objects the schema closes: nested ones and array items too, never a record", () => {
    const value = {
      title: "t",
      recurrence: { frequency: "daily" },
      headers: { "X-A": "1" },
      steps: [{ interval: 1 }, { interval: 2 }]
    }
    expect(closedObjects(window, value, resolve).map((closed) => closed.path)).toEqual([
      [],
      ["recurrence"],
      ["steps", 0],
      ["steps", 1]
    ])
    expect(closedObjects(window, { title: "t", recurrence: null }, resolve)).toHaveLength(1)
    expect(closedObjects(window, null, resolve)).toEqual([])
  })

  it("one is added where the expectation says, as an own field, without touching the value it came from", () => {
    const value = { title: "t", recurrence: { frequency: "daily", interval: 2 }, steps: [{ interval: 1 }] }
    const before = JSON.stringify(value)
    fc.assert(fc.property(dice, (numbers) => {
      const changed = withUnknownField(window, value, resolve, roller(numbers))!
      const path = changed.expect.path!
      const name = path.at(-1) as string
      const parent = path.slice(0, -1).reduce<any>((at, step) => at[step], changed.value)
      const declared = closedObjects(window, value, resolve)
        .find((closed) => JSON.stringify(closed.path) === JSON.stringify(path.slice(0, -1)))!
      expect(declared.properties).not.toContain(name)
      expect(Object.prototype.hasOwnProperty.call(parent, name)).toBe(true)
      expect(toJsonText(changed.value)).toContain(`${JSON.stringify(name)}:`)
      expect(Object.keys(parent).filter((key) => key !== name)).toEqual(
        Object.keys(path.slice(0, -1).reduce<any>((at, step) => at[step], value))
      )
    }))
    expect(JSON.stringify(value)).toBe(before)
    expect(withUnknownField(window, null, resolve, roller([0]))).toBeUndefined()
  })
})

describe("query parameters", () => {
  it("an unknown one is never declared", () => {
    fc.assert(fc.property(dice, (numbers) => {
      expect(["limit", "cursor"]).not.toContain(unknownParameter(["limit", "cursor"], roller(numbers)))
    }))
  })

  it("bad values are outside what the schema allows", () => {
    const limit = { type: "integer", minimum: 1, maximum: 1000 }
    const fits = (text: string) => /^-?\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1000
    expect(badValuesOf(limit, resolve)).toEqual(expect.arrayContaining(["abc", "1.5", "0", "1001"]))
    expect(badValuesOf(limit, resolve).filter(fits)).toEqual([])
    expect(badValuesOf({ type: "string", enum: ["24h", "7d"] }, resolve)).toEqual(["24hx", "24H", "7D"])
    const cursor = { type: "string", maxLength: 8, pattern: "^[A-Za-z0-9_-]+$" }
    for (const bad of badValuesOf(cursor, resolve)) {
      expect(bad.length > 8 || !/^[A-Za-z0-9_-]+$/.test(bad)).toBe(true)
    }
  })

  it("a tampered cursor is never one a list gave: its bytes differ", () => {
    const own = [Buffer.from(JSON.stringify({ l: "components", k: [1, "name", "id-1"] })).toString("base64url")]
    const other = [
      Buffer.from(JSON.stringify({ l: "monitors", k: ["2026-01-01T00:00:00Z", "id-2"] })).toString("base64url")
    ]
    fc.assert(fc.property(dice, fc.boolean(), (numbers, withOthers) => {
      const tampered = tamperedCursor(own, withOthers ? other : [], roller(numbers))
      expect(tampered).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(Buffer.from(tampered, "base64url").equals(Buffer.from(own[0]!, "base64url"))).toBe(false)
    }))
  })
})

describe("headers of writes", () => {
  it("an If-Match that cannot hold is neither * nor names the current tag; a malformed one names the header", () => {
    fc.assert(fc.property(dice, (numbers) => {
      const { value, expect: expectation } = failingIfMatch("\"current\"", ["\"before\""], roller(numbers))
      expect(value).not.toBe("*")
      expect(value.split(/,\s*/)).not.toContain("\"current\"")
      if (expectation.path !== undefined) expect(expectation.path).toEqual(["If-Match"])
    }))
  })

  it("a malformed Idempotency-Key is outside 1-255 printable ASCII characters", () => {
    fc.assert(fc.property(dice, (numbers) => {
      const { value, expect: expectation } = malformedIdempotencyKey(roller(numbers))
      expect(value).not.toMatch(/^[\x20-\x7E]{1,255}$/)
      expect(expectation.path).toEqual(["Idempotency-Key"])
    }))
  })
})

describe("strict requests over the service's own document", () => {
  const document = parseDocument(JSON.parse(JSON.stringify(OpenApi.fromApi(Api))))
  const context: Context = {
    resolve: document.resolve,
    now: Date.parse("2026-11-29T12:00:00Z"),
    idFor: () => fc.uuid(),
    verifyTokens: () => [],
    unsubscribeLinks: () => [],
    cursorsOf: () => [],
    cursorsBesides: () => [],
    entityTagOf: () => undefined,
    staleEntityTagsOf: () => []
  }

  it("refuse unknown query parameters everywhere under /api/v1 but the feeds", () => {
    expect(document.operations.filter((op) => !op.refusesUnknownQuery).map((op) => op.id).sort())
      .toEqual(["health.live", "health.ready", "pageStatus.atom", "pageStatus.rss", "status.atom", "status.rss"])
  })

  it("each carries one expectation, on the key's credentials, naming what the document does not declare", () => {
    for (const op of document.operations) {
      for (const request of fc.sample(requestArb(op, "strict", context, "svc_unit"), { numRuns: 20, seed: 1 })) {
        expect(request.credentials).toBe("key")
        if (!op.refusesUnknownQuery && op.body === undefined) {
          expect(request.expect).toBeUndefined()
          continue
        }
        const expectation = request.expect!
        expect(expectation).toBeDefined()
        const query = new URLSearchParams(request.target.split("?")[1] ?? "")
        switch (expectation.kind) {
          case "unknownQuery":
            expect(op.queryParams.map((p) => p.name)).not.toContain(expectation.path![0])
            expect(query.has(String(expectation.path![0]))).toBe(true)
            break
          case "badQueryValue":
            expect(op.queryParams.map((p) => p.name)).toContain(expectation.path![0])
            expect(query.getAll(String(expectation.path![0]))).toHaveLength(1)
            break
          case "unknownField":
            expect(JSON.parse(request.body!)).toBeTypeOf("object")
            break
          default:
            expect(op.headerParams.map((p) => p.name)).toContain(
              expectation.kind === "ifMatch" ? "If-Match" : "Idempotency-Key"
            )
        }
      }
    }
  })
})
