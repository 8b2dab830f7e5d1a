/**
 * Reading `If-Match` (RFC 9110 §13.1.1, §8.8.3) and comparing it with an ETag: `*`, lists,
 * quoted commas, weak tags (which never match), and headers that are neither.
 */
import { describe, expect, it } from "@effect/vitest"

import { entityTagOf, ifMatchHolds, parseIfMatch } from "../../src/http/EntityTags.js"

const current = entityTagOf("{\"id\":\"c1\",\"name\":\"API\"}")

describe("entity tags", () => {
  it("an ETag is the quoted base64url SHA-256 of the JSON, the same for the same bytes only", () => {
    expect(current).toMatch(/^"[A-Za-z0-9_-]{43}"$/)
    expect(entityTagOf(new TextEncoder().encode("{\"id\":\"c1\",\"name\":\"API\"}"))).toBe(current)
    expect(entityTagOf("{\"id\":\"c1\",\"name\":\"API \"}")).not.toBe(current)
  })

  it("reads *, one tag, and lists with spaces, empty elements and commas inside quotes", () => {
    expect(parseIfMatch("*")).toEqual({ _tag: "Any" })
    expect(parseIfMatch("  *\t")).toEqual({ _tag: "Any" })
    expect(parseIfMatch("\"abc\"")).toEqual({ _tag: "Tags", tags: [{ weak: false, opaque: "\"abc\"" }] })
    expect(parseIfMatch(" , \"a\" ,,W/\"b\",\t\"c,d\" ,")).toEqual({
      _tag: "Tags",
      tags: [
        { weak: false, opaque: "\"a\"" },
        { weak: true, opaque: "\"b\"" },
        { weak: false, opaque: "\"c,d\"" }
      ]
    })
    expect(parseIfMatch("\"\"")).toEqual({ _tag: "Tags", tags: [{ weak: false, opaque: "\"\"" }] })
  })

  it("refuses what is neither * nor a list of quoted tags", () => {
    for (
      const value of [
        "",
        " ",
        ",",
        "abc",
        "\"abc",
        "\"a\" \"b\"",
        "\"a\" x",
        "*, \"a\"",
        "\"a\", *",
        "w/\"a\"",
        "W/ \"a\"",
        "\"a b\"",
        "\"a\tb\"",
        "\"a\u0000\""
      ]
    ) {
      expect(parseIfMatch(value), JSON.stringify(value)).toBeUndefined()
    }
  })

  it("holds for *, and for a list naming the current tag strongly", () => {
    const holds = (value: string) => ifMatchHolds(parseIfMatch(value)!, current)
    expect(holds("*")).toBe(true)
    expect(holds(current)).toBe(true)
    expect(holds(`"stale", ${current}`)).toBe(true)
    expect(holds("\"stale\"")).toBe(false)
    // Strong comparison: the weak form of the very same tag never matches.
    expect(holds(`W/${current}`)).toBe(false)
    // Character by character: case and the quotes count.
    expect(holds(current.toLowerCase() === current ? current.toUpperCase() : current.toLowerCase())).toBe(false)
  })
})
