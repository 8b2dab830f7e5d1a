/**
 * The comparison behind `Idempotency-Key` (src/domain/CanonicalJson.ts): two bodies are the same
 * request when they mean the same JSON, whatever their whitespace, key order or escapes; any other
 * difference, however small, is another request.
 */
import { describe, expect, it } from "vitest"

import { canonicalBody, canonicalJson } from "../../src/domain/CanonicalJson.js"

const same = (a: string, b: string) => expect(canonicalBody(a)).toBe(canonicalBody(b))
const different = (a: string, b: string) => expect(canonicalBody(a)).not.toBe(canonicalBody(b))

describe("canonical JSON", () => {
  it("sorts the keys of every object, nested ones and those in arrays included, and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: true, y: null }], c: "x" } })).toBe(
      "{\"a\":{\"c\":\"x\",\"d\":[{\"y\":null,\"z\":true}]},\"b\":1}"
    )
  })

  it("orders keys by UTF-16 code units, as RFC 8785", () => {
    expect(canonicalJson({ "é": 1, z: 2, A: 3, "10": 4, "9": 5 })).toBe("{\"10\":4,\"9\":5,\"A\":3,\"z\":2,\"é\":1}")
  })

  it("takes bodies that mean the same JSON as the same", () => {
    same("{\"title\":\"Down\",\"message\":\"Looking\"}", "{ \"message\" : \"Looking\",\n  \"title\": \"Down\" }\n")
    same("{\"n\":1.0}", "{\"n\":1}")
    same("{\"n\":1e2}", "{\"n\":100}")
    same("{\"s\":\"\\u0041\"}", "{\"s\":\"A\"}")
    // A repeated key counts with its last value, as the handler reads it.
    same("{\"a\":1,\"a\":2}", "{\"a\":2}")
  })

  it("tells apart bodies that differ in any value, in array order, or in type", () => {
    different("{\"title\":\"Down\"}", "{\"title\":\"down\"}")
    different("{\"ids\":[1,2]}", "{\"ids\":[2,1]}")
    different("{\"n\":1}", "{\"n\":\"1\"}")
    different("{\"a\":null}", "{}")
    different("[]", "{}")
  })

  it("keeps an empty body, a body that is not JSON, and the JSON string of that text apart", () => {
    different("", "null")
    different("", "\"\"")
    different("not json", "\"not json\"")
    same("not json", "not json")
    different("not json", "not json ")
  })

  it("compares a body nested too deeply to walk as sent, without failing", () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000)
    expect(() => canonicalBody(deep)).not.toThrow()
    same(deep, deep)
  })
})
