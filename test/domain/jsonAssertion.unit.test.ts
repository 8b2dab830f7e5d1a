/** JSON assertions of http monitors: the path syntax, the ops, the failure wordings and the schema's refusals. */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"

import { CheckJob } from "../../src/domain/CheckJob.js"
import {
  assertionFailure,
  describeAssertion,
  type JsonAssertion,
  JsonAssertions,
  nestsQuantifiers,
  parsePath
} from "../../src/domain/JsonAssertion.js"

const body = JSON.stringify({
  status: "ok",
  version: "2.14.1",
  data: { count: 3, items: [{ id: "a" }, { id: "b", tags: ["x", "y"] }], empty: [], nothing: null },
  "a/b": 1,
  "m~n": 2,
  "": "blank key",
  "with space": true,
  "it's": "quoted",
  latency: "12.5",
  "1": "one"
}).replace(/}$/, ",\"big\":12345678901234567890}")

/** The error for one assertion on `text` (default: `body`). */
const failure = (assertion: JsonAssertion, text = body) => assertionFailure([assertion], text)
const holds = (assertion: JsonAssertion, text = body) => expect(failure(assertion, text)).toBeUndefined()

const decode = Schema.decodeUnknownResult(JsonAssertions)
/** The paths of the issues the schema finds in `assertions`, or "valid". */
const refusal = (assertions: unknown): ReadonlyArray<ReadonlyArray<PropertyKey>> | "valid" => {
  const result = decode(assertions)
  if (Result.isSuccess(result)) return "valid"
  const paths: Array<ReadonlyArray<PropertyKey>> = []
  const walk = (issue: any, path: ReadonlyArray<PropertyKey>): void => {
    if (issue._tag === "Pointer") return walk(issue.issue, [...path, ...issue.path])
    if (issue._tag === "Composite" || issue._tag === "AnyOf") {
      if (issue.issues.length === 0) paths.push(path)
      for (const inner of issue.issues) walk(inner, path)
      return
    }
    if ("issue" in issue && issue.issue !== undefined) return walk(issue.issue, path)
    paths.push(path)
  }
  walk(result.failure.issue, [])
  return paths
}

describe("JSON assertion paths", () => {
  it("reads JSON Pointers with their escapes and array indexes", () => {
    holds({ path: "/status", op: "==", value: "ok" })
    holds({ path: "/data/count", op: "==", value: 3 })
    holds({ path: "/data/items/1/id", op: "==", value: "b" })
    holds({ path: "/data/items/1/tags/0", op: "==", value: "x" })
    // ~1 is '/', ~0 is '~'; the empty token is the key "".
    holds({ path: "/a~1b", op: "==", value: 1 })
    holds({ path: "/m~0n", op: "==", value: 2 })
    holds({ path: "/", op: "==", value: "blank key" })
    // "" is the whole document.
    expect(failure({ path: "", op: "==", value: "ok" })).toMatch(/^assertion 1 failed: "" == "ok", got \{"1":"one"/)
    holds({ path: "", op: "==", value: 7 }, "7")
    // An array index is decimal without leading zeros; "-" (past the end) and beyond the end do not exist.
    for (const path of ["/data/items/01", "/data/items/-", "/data/items/2", "/data/items/x", "/status/0"]) {
      expect(failure({ path, op: "exists" }), path).toBe(`assertion 1 failed: ${path} exists, it does not`)
    }
    // A token that looks like an index is a key on an object.
    holds({ path: "/1", op: "==", value: "one" })
  })

  it("reads the JSONPath subset: $, .name, ['name'], [index] with negative indexes from the end", () => {
    holds({ path: "$.status", op: "==", value: "ok" })
    holds({ path: "$.data.items[0].id", op: "==", value: "a" })
    holds({ path: "$.data.items[-1].tags[-2]", op: "==", value: "x" })
    holds({ path: "$['with space']", op: "==", value: true })
    holds({ path: "$[\"it's\"]", op: "==", value: "quoted" })
    holds({ path: "$['it\\'s']", op: "==", value: "quoted" })
    holds({ path: "$['a/b']", op: "==", value: 1 })
    holds({ path: "$['']", op: "==", value: "blank key" })
    holds({ path: "$.1", op: "==", value: "one" })
    holds({ path: "$", op: "exists" })
    // An index on an object, a name on an array, past either end: nothing there.
    for (const path of ["$[1]", "$.data.items.length", "$.data.items[2]", "$.data.items[-3]", "$.data.empty[0]"]) {
      expect(failure({ path, op: "exists" }), path).toBe(`assertion 1 failed: ${path} exists, it does not`)
    }
    // Inherited properties are not keys of the document.
    for (const path of ["$.constructor", "/toString", "$['__proto__']"]) {
      expect(failure({ path, op: "exists" }), path).toBe(`assertion 1 failed: ${path} exists, it does not`)
    }
    holds({ path: "$['__proto__'].x", op: "==", value: 1 }, "{\"__proto__\":{\"x\":1}}")
  })

  it("refuses what the subset does not hold, saying why", () => {
    const problem = (path: string) => {
      const parsed = parsePath(path)
      return "problem" in parsed ? parsed.problem : undefined
    }
    for (const path of ["$.*", "$..id", "$.items[*]", "$.items[0:2]", "$.items[?(@.id)]", "$[0,1]", "$ .a", "$.a b"]) {
      expect(problem(path), path).toContain("no wildcards, recursion")
    }
    expect(problem("$.é")).toContain("['name']")
    expect(problem("$[01]")).toContain("no wildcards")
    expect(problem("$[-0]")).toContain("no wildcards")
    expect(problem("$['a\\n']")).toContain("no wildcards")
    expect(problem("$[99999999999999999999]")).toBe("must hold indexes of at most 2^53 - 1")
    expect(problem("/a~2b")).toContain("~0")
    expect(problem("/a~")).toContain("~0")
    expect(problem("status")).toBe("must be a JSON Pointer (\"\" or starting with /) or a JSONPath starting with $")
    expect(problem("")).toBeUndefined()
    expect(problem("/~01")).toBeUndefined()
    // RFC 6901: ~01 is the text "~1", not "/".
    holds({ path: "/~01", op: "==", value: 1 }, "{\"~1\":1,\"/\":2}")
  })
})

describe("JSON assertion ops", () => {
  it("== and != compare JSON scalars strictly, without coercion", () => {
    holds({ path: "$.data.nothing", op: "==", value: null })
    holds({ path: "$.data.count", op: "!=", value: "3" })
    expect(failure({ path: "$.data.count", op: "==", value: "3" })).toBe(
      "assertion 1 failed: $.data.count == \"3\", got 3"
    )
    expect(failure({ path: "$.status", op: "!=", value: "ok" })).toBe(
      "assertion 1 failed: $.status != \"ok\", got \"ok\""
    )
    // An object or an array equals no scalar.
    expect(failure({ path: "$.data.empty", op: "==", value: null })).toBe(
      "assertion 1 failed: $.data.empty == null, got []"
    )
    // Every op but exists needs the place to exist, != too.
    expect(failure({ path: "$.error", op: "!=", value: "boom" })).toBe(
      "assertion 1 failed: $.error != \"boom\", it does not exist"
    )
  })

  it("< and > compare numbers, a numeric string in the document counting as its number", () => {
    holds({ path: "$.data.count", op: ">", value: 2 })
    holds({ path: "$.data.count", op: "<", value: 3.5 })
    holds({ path: "$.latency", op: "<", value: 13 })
    expect(failure({ path: "$.data.count", op: "<", value: 3 })).toBe("assertion 1 failed: $.data.count < 3, got 3")
    expect(failure({ path: "$.status", op: ">", value: 0 })).toBe("assertion 1 failed: $.status > 0, got \"ok\"")
    // Only JSON's number grammar counts: no spaces, hex, Infinity or empty text.
    for (const text of [" 5", "0x10", "Infinity", "", "5.", "+5", "1_000"]) {
      expect(failure({ path: "$.v", op: ">", value: -1 }, JSON.stringify({ v: text })), text).toContain("got")
    }
    expect(failure({ path: "$.data.nothing", op: "<", value: 1 })).toBe(
      "assertion 1 failed: $.data.nothing < 1, got null"
    )
    expect(failure({ path: "$.data", op: ">", value: 1 })).toMatch(/^assertion 1 failed: \$\.data > 1, got \{"count":3/)
  })

  it("compares huge numbers as JSON.parse reads them: doubles, beyond 2^53 to about 16 digits", () => {
    holds({ path: "$.big", op: ">", value: 1e19 })
    // 12345678901234567890 reads as the nearest double, 12345678901234567168.
    holds({ path: "$.big", op: "==", value: 12345678901234567168 })
    holds({ path: "$.big", op: "<", value: 12345678901234569000 })
    holds({ path: "$.n", op: ">", value: 1e308 }, "{\"n\":1e400}")
    holds({ path: "$.n", op: "<", value: -1e308 }, "{\"n\":-1e400}")
    holds({ path: "$.n", op: "==", value: 0 }, "{\"n\":-0}")
    holds({ path: "$.n", op: ">", value: 1e308 }, "{\"n\":\"1e999\"}")
  })

  it("contains: a substring of a string, or an element of an array equal to the value", () => {
    holds({ path: "$.version", op: "contains", value: "2.14" })
    holds({ path: "$.data.items[1].tags", op: "contains", value: "y" })
    holds({ path: "$.list", op: "contains", value: 2 }, "{\"list\":[1,2,null]}")
    holds({ path: "$.list", op: "contains", value: null }, "{\"list\":[1,2,null]}")
    expect(failure({ path: "$.list", op: "contains", value: "2" }, "{\"list\":[1,2]}")).toBe(
      "assertion 1 failed: $.list contains \"2\", got [1,2]"
    )
    expect(failure({ path: "$.version", op: "contains", value: "3." })).toBe(
      "assertion 1 failed: $.version contains \"3.\", got \"2.14.1\""
    )
    // A number is no string: no substring of its digits.
    expect(failure({ path: "$.data.count", op: "contains", value: "3" })).toBe(
      "assertion 1 failed: $.data.count contains \"3\", got 3"
    )
    // Objects are not looked into.
    expect(failure({ path: "$.data.items", op: "contains", value: "a" })).toContain("got [{\"id\":\"a\"}")
  })

  it("matches: a JavaScript regular expression on a string, or on a scalar's JSON text", () => {
    holds({ path: "$.version", op: "matches", value: "^2\\.\\d+\\.\\d+$" })
    holds({ path: "$.status", op: "matches", value: "(?i:OK)" })
    holds({ path: "$.data.count", op: "matches", value: "^[0-9]$" })
    holds({ path: "$.data.nothing", op: "matches", value: "^null$" })
    expect(failure({ path: "$.version", op: "matches", value: "^3\\." })).toBe(
      "assertion 1 failed: $.version matches \"^3\\\\.\", got \"2.14.1\""
    )
    expect(failure({ path: "$.data.items", op: "matches", value: "." })).toContain("got [")
    // It runs on the first 1024 characters only.
    const long = JSON.stringify({ text: `${"a".repeat(1024)}END` })
    expect(failure({ path: "$.text", op: "matches", value: "END" }, long)).toContain("got \"aaaa")
    holds({ path: "$.text", op: "matches", value: "^a{1024}$" }, long)
  })

  it("exists: absent or true, the place must exist; false, it must not", () => {
    holds({ path: "/data/nothing", op: "exists" })
    holds({ path: "/data/count", op: "exists", value: true })
    holds({ path: "/data/error", op: "exists", value: false })
    expect(failure({ path: "/data/error", op: "exists" })).toBe("assertion 1 failed: /data/error exists, it does not")
    expect(failure({ path: "/data/count", op: "exists", value: false })).toBe(
      "assertion 1 failed: /data/count does not exist, got 3"
    )
  })
})

describe("JSON assertion failures", () => {
  it("name the first failing assertion, numbered from 1", () => {
    const assertions: ReadonlyArray<JsonAssertion> = [
      { path: "$.status", op: "==", value: "ok" },
      { path: "$.data.count", op: ">", value: 5 },
      { path: "$.missing", op: "exists" }
    ]
    expect(assertionFailure(assertions, body)).toBe("assertion 2 failed: $.data.count > 5, got 3")
    expect(assertionFailure([{ path: "$.status", op: "==", value: "ok" }], body)).toBeUndefined()
    expect(assertionFailure(
      [{ path: "$.status", op: "==", value: "ok" }],
      JSON.stringify({ status: "degraded" })
    )).toBe("assertion 1 failed: $.status == \"ok\", got \"degraded\"")
  })

  it("say when the body is not JSON, and why", () => {
    const one: ReadonlyArray<JsonAssertion> = [{ path: "$", op: "exists" }]
    expect(assertionFailure(one, "hello")).toBe(
      // Node's own words quote the body (the target's text): only fixed words and a position are kept.
      "the answer is not JSON: it is not valid JSON"
    )
    expect(assertionFailure(one, "{\"a\":")).toBe("the answer is not JSON: it ends too early")
    expect(assertionFailure(one, "{\"a\": 1 x}")).toMatch(/^the answer is not JSON: invalid at position \d+$/)
    expect(assertionFailure(one, "")).toBe("the answer is not JSON: the body is empty")
    expect(assertionFailure(one, " \n")).toBe("the answer is not JSON: the body is empty")
    expect(assertionFailure(one, "{\"a\":[1,", true)).toBe(
      "the answer is not JSON: it is longer than the 1 MB a check reads"
    )
    // A byte order mark is skipped; JSON's scalars are documents too.
    expect(assertionFailure(one, "\uFEFF{\"a\":1}")).toBeUndefined()
    expect(assertionFailure([{ path: "", op: "==", value: "up" }], "\"up\"")).toBeUndefined()
  })

  it("quote values as JSON, capped at 100 characters", () => {
    const long = "x".repeat(300)
    const error = failure({ path: "$.v", op: "==", value: "y" }, JSON.stringify({ v: long }))!
    expect(error).toBe(`assertion 1 failed: $.v == "y", got "${"x".repeat(99)}…`)
    const withEmoji = failure({ path: "$.v", op: "==", value: "y" }, JSON.stringify({ v: `${"x".repeat(98)}😀z` }))!
    // Not cut inside the emoji's surrogate pair.
    expect(error.endsWith("…")).toBe(true)
    expect(withEmoji).toBe(`assertion 1 failed: $.v == "y", got "${"x".repeat(98)}…`)
    expect(describeAssertion({ path: "$.v", op: "==", value: long })).toBe(`$.v == "${"x".repeat(99)}…`)
    expect(describeAssertion({ path: "$.quote", op: "==", value: "say \"hi\"" })).toBe("$.quote == \"say \\\"hi\\\"\"")

    // An object is quoted in JSON's order of keys; a document nested a million deep neither overflows nor is written whole.
    expect(failure({ path: "$", op: "==", value: 1 }, "{\"b\":[1,{\"c\":null}],\"a\":\"x\",\"2\":true}")).toBe(
      "assertion 1 failed: $ == 1, got {\"2\":true,\"b\":[1,{\"c\":null}],\"a\":\"x\"}"
    )
    const deep = `{"a":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}`
    expect(failure({ path: "$.a", op: "==", value: 1 }, deep)).toBe(
      `assertion 1 failed: $.a == 1, got ${"[".repeat(100)}…`
    )
    expect(failure({ path: "$.a", op: "matches", value: "x" }, deep)).toContain("got [[[")
    expect(failure({ path: "$.a", op: "exists", value: false }, deep)).toContain("does not exist, got [[[")
    const wide = JSON.stringify({ list: Array.from({ length: 100_000 }, (_, i) => i) })
    expect(failure({ path: "$.list", op: "contains", value: -1 }, wide)).toBe(
      `assertion 1 failed: $.list contains -1, got ${
        JSON.stringify(Array.from({ length: 100 }, (_, i) => i)).slice(0, 100)
      }…`
    )
  })
})

describe("JSON assertion schema", () => {
  it("accepts each op with a value that suits it", () => {
    expect(refusal([
      { path: "$.a", op: "==", value: "x" },
      { path: "/a", op: "!=", value: null },
      { path: "$.a", op: "<", value: 1.5 },
      { path: "$.a", op: ">", value: -3 },
      { path: "$.a", op: "contains", value: true },
      { path: "$.a", op: "matches", value: "^(?:ok|up)$" },
      { path: "$.a", op: "exists" },
      { path: "$.a", op: "exists", value: false },
      { path: "", op: "==", value: 0 }
    ])).toBe("valid")
  })

  it("refuses a bad path, op or value, naming the assertion's field", () => {
    const cases: ReadonlyArray<readonly [string, unknown, ReadonlyArray<PropertyKey>]> = [
      ["path outside the subset", { path: "$..a", op: "exists" }, [0, "path"]],
      ["path without $ or /", { path: "status", op: "exists" }, [0, "path"]],
      ["path too long", { path: `$.${"a".repeat(255)}`, op: "exists" }, [0, "path"]],
      ["unknown op", { path: "$.a", op: "=~", value: "x" }, [0, "op"]],
      ["no value with ==", { path: "$.a", op: "==" }, [0, "value"]],
      ["an object value", { path: "$.a", op: "==", value: { b: 1 } }, [0, "value"]],
      ["an array value", { path: "$.a", op: "contains", value: [1] }, [0, "value"]],
      ["a string with <", { path: "$.a", op: "<", value: "5" }, [0, "value"]],
      ["null with >", { path: "$.a", op: ">", value: null }, [0, "value"]],
      ["a value with exists", { path: "$.a", op: "exists", value: "yes" }, [0, "value"]],
      ["a number to match", { path: "$.a", op: "matches", value: 5 }, [0, "value"]],
      ["a pattern that does not compile", { path: "$.a", op: "matches", value: "(" }, [0, "value"]],
      ["a pattern too long", { path: "$.a", op: "matches", value: "a".repeat(257) }, [0, "value"]],
      ["nested quantifiers", { path: "$.a", op: "matches", value: "^(a+)+$" }, [0, "value"]],
      ["a value too long", { path: "$.a", op: "==", value: "v".repeat(1025) }, [0, "value"]],
      ["a NUL in a value", { path: "$.a", op: "==", value: "a\u0000" }, [0, "value"]]
    ]
    for (const [label, assertion, path] of cases) {
      expect(refusal([assertion]), label).toEqual(expect.arrayContaining([path]))
    }
    expect(refusal([])).not.toBe("valid")
    expect(refusal(Array.from({ length: 21 }, () => ({ path: "$", op: "exists" })))).not.toBe("valid")
    expect(refusal(Array.from({ length: 20 }, () => ({ path: "$", op: "exists" })))).toBe("valid")
  })

  it("refuses the patterns that repeat a repetition, the shape of catastrophic backtracking", () => {
    for (const pattern of ["(a+)+", "(a*)*b", "(\\w+\\s?)*$", "((ab)*c)+", "(?:x{2,})+", "(a{1,5}){2}", "(?<n>a+)*"]) {
      expect(nestsQuantifiers(pattern), pattern).toBe(true)
    }
    for (
      const pattern of [
        "^ok$",
        "a+b*",
        "(ab)+",
        "(a?)+",
        "(a{1})+",
        "[(a+)]+",
        "\\(a+\\)+",
        "(?:https?://)+",
        "(a+)?",
        "(?=a+)b",
        "(?i:ok)+"
      ]
    ) {
      expect(nestsQuantifiers(pattern), pattern).toBe(false)
    }
  })

  it("travels in a job, which refuses what the API would", () => {
    const job = {
      id: "m1:0",
      monitorId: "m1",
      type: "http",
      url: "http://127.0.0.1/",
      timeoutMs: 1000,
      expectedStatusCode: 200,
      intervalSeconds: 60,
      scheduledAt: 0
    }
    const decodeJob = Schema.decodeUnknownResult(CheckJob)
    const assertions = [{ path: "$.status", op: "==", value: "ok" }, { path: "/up", op: "exists" }]
    const decoded = decodeJob({ ...job, assertions })
    expect(Result.isSuccess(decoded) && decoded.success.assertions).toEqual(assertions)
    expect(Result.isSuccess(decodeJob({ ...job, assertions: null }))).toBe(true)
    expect(Result.isSuccess(decodeJob(job))).toBe(true)
    for (const bad of [[{ path: "$..x", op: "exists" }], [{ path: "$", op: "matches", value: "(a+)+" }], []]) {
      expect(Result.isFailure(decodeJob({ ...job, assertions: bad })), JSON.stringify(bad)).toBe(true)
    }
  })
})
