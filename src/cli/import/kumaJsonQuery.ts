/**
 * An Uptime Kuma `json-query` check as JSON assertions (src/domain/JsonAssertion.ts), when they
 * can say the same. Kuma 2 evaluates a JSONata expression (`json_path`) on the answer, turns the
 * result and `expected_value` into text, and compares the two texts with `json_path_operator`.
 * A JSONata path of names and indexes (`$.data.items[0].status`, `status`) is a JSONPath here;
 * functions, filters, wildcards and arithmetic are not. The comparison is by text in Kuma, so
 * `== 200` passes on the number 200 and on the string "200": that becomes `matches ^200$`, which
 * reads both; `!=` becomes one assertion per form.
 */
import type { JsonAssertion } from "../../domain/JsonAssertion.js"

/** JSONata's literals and operators, which read as names but are not paths. */
const reserved = new Set(["true", "false", "null", "and", "or", "in"])
const jsonataName = /^(?:([A-Za-z_][A-Za-z0-9_]*)|`([^`]+)`)/
const jsonataIndex = /^\[\s*(-?\d+)\s*\]/

const step = (name: string) =>
  /^[A-Za-z0-9_-]+$/.test(name) ? `.${name}` : `['${name.replace(/[\\']/g, (char) => `\\${char}`)}']`

/** The JSONPath of a JSONata path expression, or null when the expression is more than a path. */
export const jsonataPath = (expression: string): string | null => {
  let rest = expression.trim()
  if (rest === "" || rest === "$") return "$"
  let path = "$"
  // `$` is the document at the top of an expression: `$.a` and `a` are the same path.
  let expectName = !rest.startsWith("$")
  if (!expectName) rest = rest.slice(1)
  while (rest !== "") {
    if (expectName) {
      const name = jsonataName.exec(rest)
      if (name === null || (name[1] !== undefined && reserved.has(name[1]))) return null
      path += step(name[1] ?? name[2]!)
      rest = rest.slice(name[0].length)
      expectName = false
    } else if (rest.startsWith(".")) {
      rest = rest.slice(1)
      expectName = true
    } else {
      const index = jsonataIndex.exec(rest)
      if (index === null || !Number.isSafeInteger(Number(index[1]))) return null
      path += `[${Number(index[1])}]`
      rest = rest.slice(index[0].length)
    }
  }
  return expectName ? null : path
}

/** Text that a JSON number or boolean turns into (what Kuma's comparison sees of one). */
const scalarOf = (text: string): number | boolean | undefined =>
  text === "true" ? true : text === "false" ? false : String(Number(text)) === text ? Number(text) : undefined

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/** The assertions that say what Kuma's json-query said, or why they cannot. */
export const kumaJsonQuery = (
  expression: string | null,
  operator: string | null,
  expected: string | null
): { readonly assertions: ReadonlyArray<JsonAssertion> } | { readonly problem: string } => {
  const path = jsonataPath(expression ?? "")
  if (path === null) {
    return {
      problem: `its JSONata expression ${
        JSON.stringify(expression)
      } is more than a path of names and [index] steps, which is what our assertions take`
    }
  }
  if (expected === null) return { problem: "it has no expected value" }
  const scalar = scalarOf(expected)
  // Kuma 1.x stored no operator: its json-query only compared for equality.
  switch (operator ?? "==") {
    case "==":
      return {
        assertions: [
          scalar === undefined
            ? { path, op: "==", value: expected }
            : { path, op: "matches", value: `^${escapeRegExp(expected)}$` }
        ]
      }
    case "!=":
      return {
        assertions: scalar === undefined
          ? [{ path, op: "!=", value: expected }]
          : [{ path, op: "!=", value: expected }, { path, op: "!=", value: scalar }]
      }
    case "<":
    case ">":
      return typeof scalar === "number"
        ? { assertions: [{ path, op: operator as "<" | ">", value: scalar }] }
        : { problem: `it compares with ${operator} to ${JSON.stringify(expected)}, which is not a number` }
    case "contains":
      return { assertions: [{ path, op: "contains", value: expected }] }
    default:
      return {
        problem:
          `its operator ${operator} has no counterpart: our assertions compare with ==, !=, <, >, contains and matches`
      }
  }
}
