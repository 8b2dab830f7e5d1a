/**
 * JSON assertions of `http` monitors (docs/monitor-fleet.md, "JSON assertions"): each names a
 * place in the answer's body, parsed as JSON, and what must hold there. The schema refuses what
 * could not be evaluated (a path outside the accepted syntax, a pattern that does not compile, a
 * value that does not suit the op), and `assertionFailure` judges a body. Pure: the probe, the
 * API and the dashboard import it, so no node or database module here.
 */
import { Schema } from "effect"

import { Text } from "./Fields.js"

export const assertionLimits = {
  /** Assertions per monitor. */
  max: 20,
  pathLength: 256,
  /** A string `value`. */
  valueLength: 1024,
  /** A `matches` pattern's source. */
  patternLength: 256,
  /**
   * How much of a string `matches` runs on: a pattern is the monitor's, but the text is the
   * target's, and a regular expression's time grows with the text it backtracks over.
   */
  matchedLength: 1024,
  /** How long a probe lets one `matches` run: a pattern that backtracks longer fails its assertion. */
  matchMs: 100,
  /** How much of a value a failure quotes (as JSON). */
  shownLength: 100
} as const

export const AssertionOp = Schema.Literals(["==", "!=", "<", ">", "contains", "matches", "exists"])
export type AssertionOp = typeof AssertionOp.Type

/** One step of a path: a JSON Pointer token (a key, or an index on an array), a JSONPath name or index. */
type Step =
  | { readonly token: string }
  | { readonly name: string }
  | { readonly index: number }

type Parsed = { readonly steps: ReadonlyArray<Step> } | { readonly problem: string }

const pointerIndex = /^(?:0|[1-9]\d*)$/
const dotName = /^[A-Za-z0-9_-]+/
const bracketIndex = /^\[(0|-?[1-9]\d*)\]/
const bracketName = /^\[(['"])((?:\\[\\'"]|(?!\1)[^\\])*)\1\]/

const jsonPointer = (path: string): Parsed => {
  const steps: Array<Step> = []
  if (path === "") return { steps } // the whole document
  for (const raw of path.slice(1).split("/")) {
    if (/~(?![01])/.test(raw)) {
      return {
        problem: "must write '~' as ~0 and '/' as ~1 (a JSON Pointer): '~' followed by anything else is invalid"
      }
    }
    // RFC 6901: ~1 first, so ~01 is the text ~1.
    steps.push({ token: raw.replaceAll("~1", "/").replaceAll("~0", "~") })
  }
  return { steps }
}

const jsonPath = (path: string): Parsed => {
  const steps: Array<Step> = []
  const unsupported = {
    problem: "must be $ followed by .name, ['name'] or [index] steps only (a JSONPath): " +
      "no wildcards, recursion (..), slices, filters or unions"
  }
  let at = 1
  while (at < path.length) {
    const rest = path.slice(at)
    if (rest.startsWith(".")) {
      const name = dotName.exec(rest.slice(1))
      if (name === null) {
        return rest.startsWith("..") || rest.startsWith(".*") ? unsupported : {
          problem: "must follow '.' with a name of letters, digits, '_' and '-' (['name'] for any other name)"
        }
      }
      steps.push({ name: name[0] })
      at += 1 + name[0].length
    } else if (rest.startsWith("[")) {
      const index = bracketIndex.exec(rest)
      const name = index === null ? bracketName.exec(rest) : null
      if (index !== null) {
        const value = Number(index[1])
        if (!Number.isSafeInteger(value)) return { problem: "must hold indexes of at most 2^53 - 1" }
        steps.push({ index: value })
        at += index[0].length
      } else if (name !== null) {
        steps.push({ name: name[2]!.replace(/\\(.)/g, "$1") })
        at += name[0].length
      } else {
        return unsupported
      }
    } else {
      return unsupported
    }
  }
  return { steps }
}

/** The steps of `path`, or why it is not one this module accepts. */
export const parsePath = (path: string): Parsed =>
  path === "" || path.startsWith("/")
    ? jsonPointer(path)
    : path.startsWith("$")
    ? jsonPath(path)
    : { problem: "must be a JSON Pointer (\"\" or starting with /) or a JSONPath starting with $" }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What `steps` point at in `document`, or `absent`. Own keys only: `__proto__` is a key like any other. */
const absent: unique symbol = Symbol("absent")
const resolve = (document: unknown, steps: ReadonlyArray<Step>): unknown => {
  let at: unknown = document
  for (const step of steps) {
    if ("token" in step) {
      if (Array.isArray(at)) {
        if (!pointerIndex.test(step.token) || Number(step.token) >= at.length) return absent
        at = at[Number(step.token)]
      } else if (isRecord(at) && Object.hasOwn(at, step.token)) {
        at = at[step.token]
      } else {
        return absent
      }
    } else if ("name" in step) {
      if (!isRecord(at) || !Object.hasOwn(at, step.name)) return absent
      at = at[step.name]
    } else {
      if (!Array.isArray(at)) return absent
      const index = step.index < 0 ? at.length + step.index : step.index
      if (index < 0 || index >= at.length) return absent
      at = at[index]
    }
  }
  return at
}

/**
 * Whether a pattern repeats a part that holds a repetition itself ((a+)+, (\w*\s?)*, (x{2,})+):
 * the shape whose backtracking takes exponential time on a text that almost matches. Every
 * repetition inside a repeated group counts, even one a separator makes safe, as `(\d+\.)+`.
 */
export const nestsQuantifiers = (source: string): boolean => {
  /** For each open group, whether it holds a repetition. */
  const groups: Array<boolean> = [false]
  /** Whether the atom just read (a group) holds a repetition. */
  let repeatingAtom = false
  let at = 0
  while (at < source.length) {
    const char = source[at]!
    if (char === "\\") {
      at += 2
      repeatingAtom = false
    } else if (char === "[") {
      at++
      while (at < source.length && source[at] !== "]") at += source[at] === "\\" ? 2 : 1
      at++
      repeatingAtom = false
    } else if (char === "(") {
      groups.push(false)
      at++
      if (source[at] === "?") {
        // (?: (?= (?! (?<= (?<! (?<name> (?i:: none of these marks is a quantifier.
        const mark = /^\?(?:<[=!]|[:=!]|<[^>]*>|[a-zA-Z-]*:)/.exec(source.slice(at))
        at += mark === null ? 1 : mark[0].length
      }
      repeatingAtom = false
    } else if (char === ")") {
      repeatingAtom = groups.length > 1 ? groups.pop()! : false
      if (repeatingAtom) groups[groups.length - 1] = true
      at++
    } else {
      const quantifier = /^(?:([*+])|\?|\{(\d+)(,(\d*))?\})/.exec(source.slice(at))
      if (quantifier === null) {
        at++
        repeatingAtom = false
        continue
      }
      const [text, star, least, range, most] = quantifier
      // `?`, `{1}` and `{0,1}` take a part once at most: no repetition.
      const repeats = star !== undefined ||
        (least !== undefined && (range === undefined ? Number(least) > 1 : most === "" || Number(most) > 1))
      if (repeats) {
        if (repeatingAtom) return true
        groups[groups.length - 1] = true
      }
      at += text.length
      if (source[at] === "?") at++ // lazy
      repeatingAtom = false
    }
  }
  return false
}

/** Why `source` is no pattern a `matches` may use, or undefined. */
const patternProblem = (source: string): string | undefined => {
  if (source.length > assertionLimits.patternLength) {
    return `must be at most ${assertionLimits.patternLength} characters (a pattern)`
  }
  try {
    new RegExp(source)
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}`
  }
  return nestsQuantifiers(source)
    ? "must not repeat a part that repeats itself, such as (a+)+: such a pattern can take exponential time"
    : undefined
}

const Scalar = Schema.Union([
  Text(assertionLimits.valueLength),
  Schema.Finite,
  Schema.Boolean,
  Schema.Null
]).annotate({ description: "A JSON scalar: a string (at most 1024 characters), a number, true, false or null" })

const AssertionPath = Text(assertionLimits.pathLength).check(
  Schema.makeFilter((path: string) => {
    const parsed = parsePath(path)
    return "problem" in parsed ? parsed.problem : true
  })
).annotate({
  description: "A JSON Pointer (RFC 6901: \"\" or /a/0/b~1c) or a JSONPath of $ followed by .name, ['name'] and " +
    "[index] steps (a negative index counts from the end)"
})

/** Why `value` does not suit `op`, or undefined. */
const valueProblem = (op: AssertionOp, value: unknown, given: boolean): string | undefined => {
  switch (op) {
    case "exists":
      return !given || typeof value === "boolean"
        ? undefined
        : "must be absent or true (the place must exist), or false (it must not), with exists"
    case "<":
    case ">":
      return typeof value === "number" ? undefined : `must be a number with ${op}`
    case "matches":
      return typeof value === "string" ? patternProblem(value) : "must be a regular expression (a string) with matches"
    default:
      return given ? undefined : `is required with ${op}`
  }
}

export const JsonAssertion = Schema.Struct({
  path: AssertionPath,
  op: AssertionOp,
  /** A JSON scalar; optional with `exists` only (false: the place must not exist). */
  value: Schema.optionalKey(Scalar)
}).check(
  Schema.makeFilter((assertion) => {
    const problem = valueProblem(assertion.op, assertion.value, "value" in assertion)
    return problem === undefined || { path: ["value"], issue: problem }
  })
).annotate({
  description: "An assertion on the answer's body as JSON: `path` (a JSON Pointer or a JSONPath subset), `op` " +
    "(==, !=, <, >, contains, matches, exists) and `value` (a JSON scalar; for exists, none or true: must exist, " +
    "false: must not)"
})
export type JsonAssertion = typeof JsonAssertion.Type

export const JsonAssertions = Schema.Array(JsonAssertion).check(
  Schema.isMinLength(1, { message: "must hold at least one assertion (null for none)" }),
  Schema.isMaxLength(assertionLimits.max, { message: `must hold at most ${assertionLimits.max} assertions` })
)

/** `text` cut to `max` characters with `…`, never inside a surrogate pair. */
const cut = (text: string, max: number) => {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}…`
}

/**
 * A value as a failure quotes it: its JSON, capped. Written here rather than by JSON.stringify,
 * which would write all of a 1 MB document to quote 100 characters, and overflows the stack on
 * an array nested a million deep (the target decides what it sends).
 */
const shown = (value: unknown) => {
  const max = assertionLimits.shownLength
  let text = ""
  /** Writes `part`; false once the text is long enough to be cut. */
  const write = (part: unknown): boolean => {
    if (Array.isArray(part)) {
      text += "["
      for (const [index, element] of part.entries()) {
        if (index > 0) text += ","
        if (text.length > max || !write(element)) return false
      }
      text += "]"
    } else if (isRecord(part)) {
      text += "{"
      for (const [index, key] of Object.keys(part).entries()) {
        text += `${index > 0 ? "," : ""}${JSON.stringify(key)}:`
        if (text.length > max || !write(part[key])) return false
      }
      text += "}"
    } else {
      text += JSON.stringify(part)
    }
    return text.length <= max
  }
  write(value)
  return cut(text, max)
}

/** The assertion as its failure writes it: `$.status == "ok"`, `/data exists`, `/error does not exist`. */
export const describeAssertion = (assertion: JsonAssertion): string => {
  const path = assertion.path === "" ? "\"\"" : assertion.path
  if (assertion.op === "exists") return assertion.value === false ? `${path} does not exist` : `${path} exists`
  return `${path} ${assertion.op} ${shown(assertion.value)}`
}

/** JSON's number grammar: a string of it counts as a number for `<` and `>`. */
const numericText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && numericText.test(value) ? Number(value) : undefined

/**
 * Runs a `matches` pattern on a text: true or false, or "timeout" when it ran out of time. The
 * probe gives one that stops a pattern after `assertionLimits.matchMs` (probes/checks/http.ts):
 * a guard on the pattern's shape cannot catch every pattern that backtracks for ages. Here, for
 * the dashboard and the tests, it runs unguarded.
 */
export type Matcher = (source: string, subject: string) => boolean | "timeout"

export const unguardedMatcher: Matcher = (source, subject) => new RegExp(source).test(subject)

/** Whether `actual` (present) holds for `assertion` (not `exists`). */
const holds = (assertion: JsonAssertion, actual: unknown, match: Matcher): boolean | "timeout" => {
  const expected = assertion.value
  switch (assertion.op) {
    case "==":
      return actual === expected
    case "!=":
      return actual !== expected
    case "<":
    case ">": {
      const number = asNumber(actual)
      if (number === undefined || typeof expected !== "number") return false
      return assertion.op === "<" ? number < expected : number > expected
    }
    case "contains":
      return typeof actual === "string" && typeof expected === "string"
        ? actual.includes(expected)
        : Array.isArray(actual) && actual.some((element) => element === expected)
    case "matches": {
      if (typeof actual === "object" && actual !== null) return false
      const subject = typeof actual === "string" ? actual : JSON.stringify(actual)
      return match(String(expected), subject.slice(0, assertionLimits.matchedLength))
    }
    case "exists":
      return true
  }
}

/**
 * The parser's reason in fixed words: V8's own quotes a piece of the body, which is the target's
 * text and may hold anything; only the position is kept.
 */
const notJsonReason = (message: string) => {
  const position = /at position (\d+)/.exec(message)?.[1]
  return position !== undefined
    ? `invalid at position ${position}`
    : /end of JSON input/.test(message)
    ? "it ends too early"
    : "it is not valid JSON"
}

/** Why the body fails, in the words automation matches, or undefined when every assertion holds. */
const failureOf = (
  assertion: JsonAssertion,
  number: number,
  document: unknown,
  match: Matcher
): string | undefined => {
  const parsed = parsePath(assertion.path)
  const actual = "steps" in parsed ? resolve(document, parsed.steps) : absent
  const found = actual !== absent
  const failed = `assertion ${number} failed: ${describeAssertion(assertion)}`
  if (assertion.op === "exists") {
    const mustExist = assertion.value !== false
    if (found === mustExist) return undefined
    return mustExist ? `${failed}, it does not` : `${failed}, got ${shown(actual)}`
  }
  if (!found) return `${failed}, it does not exist`
  const verdict = holds(assertion, actual, match)
  return verdict === "timeout"
    ? `${failed}, the pattern ran longer than ${assertionLimits.matchMs} ms`
    : verdict
    ? undefined
    : `${failed}, got ${shown(actual)}`
}

/**
 * Why `body` (the first 1 MB of the answer, as UTF-8; `truncated` when the answer was longer)
 * fails `assertions`, naming the first that fails (numbered from 1), or undefined when all hold.
 */
export const assertionFailure = (
  assertions: ReadonlyArray<JsonAssertion>,
  body: string,
  truncated = false,
  match: Matcher = unguardedMatcher
): string | undefined => {
  let document: unknown
  try {
    // A byte order mark is no part of the JSON text (RFC 8259 lets a parser ignore it).
    document = JSON.parse(body.startsWith("\uFEFF") ? body.slice(1) : body)
  } catch (error) {
    const reason = truncated
      ? "it is longer than the 1 MB a check reads"
      : body.trim() === ""
      ? "the body is empty"
      : notJsonReason((error as Error).message)
    return `the answer is not JSON: ${reason}`
  }
  for (const [index, assertion] of assertions.entries()) {
    const failure = failureOf(assertion, index + 1, document, match)
    if (failure !== undefined) return failure
  }
  return undefined
}
