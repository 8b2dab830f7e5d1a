/**
 * Words for a schema's refusal, for the people who read the API's 400s (docs/api.md, "Errors"):
 * one issue per offending field, each saying what was expected ("is required", "must be one of
 * a, b, c", "must be an integer from 1 to 100", "is not a known field (did you mean isPublic?)"),
 * and one sentence for the whole request. Effect's own formatters list an issue per union member
 * and print the schema's tree; these read the schema (SchemaAST) instead. No message quotes the
 * refused value, and names taken from the input (unknown keys) are shortened, so an answer stays
 * small whatever was sent. The server (http/ApiErrors) and the dashboard's own check of a form
 * before sending it (web/admin/app/core/failure) use them both.
 */
import type { SchemaIssue } from "effect"
import { SchemaAST } from "effect"

import { maxKeyLength, type RequestPart, shortKey, summary } from "../domain/IssueSentence.js"

export { pathWords, type RequestPart, summary } from "../domain/IssueSentence.js"

/** What kind of offence an issue is; the `_tag` of HttpApiDecodeError's issues (api/ApiErrors). */
export type IssueTag = "Missing" | "Unexpected" | "Refinement" | "Type" | "Forbidden"

/** One offending field: where it is in the request part (`path`, array elements by index) and what is wrong. */
export interface FieldIssue {
  readonly tag: IssueTag
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** At most this many issues are answered (the sentence still counts them all). */
export const maxIssues = 100

const stringOf = (value: unknown) => typeof value === "string" ? value : undefined

// ---------------------------------------------------------------------------------------------
// What a schema expects, in words

type Check = SchemaAST.Check<unknown>

const flatChecks = (checks: ReadonlyArray<Check> | undefined): Array<SchemaAST.Filter<unknown>> =>
  (checks ?? []).flatMap((check) => check._tag === "FilterGroup" ? flatChecks(check.checks) : [check])

interface Representation {
  readonly id: string
  readonly payload: Record<string, unknown> | null
}

/**
 * The checks of `ast` along its encoding, as long as it is the same kind of value (a number
 * clamped after its check, `PageOffset`): the schema a client's value meets first.
 */
const checksAlong = (ast: SchemaAST.AST): Array<SchemaAST.Filter<unknown>> => {
  const checks = flatChecks(ast.checks)
  for (const link of ast.encoding ?? []) {
    if (link.to._tag !== ast._tag) break
    checks.push(...flatChecks(link.to.checks))
  }
  return checks
}

/** The checks of `ast` Effect describes (`isInt`, `isBetween`, `isMaxLength`, …), by their short name. */
const checksOf = (ast: SchemaAST.AST): Map<string, Record<string, unknown>> => {
  const found = new Map<string, Record<string, unknown>>()
  for (const filter of checksAlong(ast)) {
    const representation = filter.annotations?.representation as Representation | undefined
    if (typeof representation?.id === "string" && representation.id.startsWith("effect/schema/")) {
      found.set(representation.id.slice("effect/schema/".length), representation.payload ?? {})
    }
  }
  return found
}

const num = (value: unknown) => typeof value === "number" ? value : undefined

/** "a number", "an integer from 1 to 100", "an integer of 0 or more". */
const numberWords = (ast: SchemaAST.AST) => {
  const checks = checksOf(ast)
  const kind = checks.has("isInt") ? "an integer" : "a number"
  const between = checks.get("isBetween")
  const min = num(between?.minimum) ?? num(checks.get("isGreaterThanOrEqualTo")?.minimum)
  const max = num(between?.maximum) ?? num(checks.get("isLessThanOrEqualTo")?.maximum)
  const above = num(checks.get("isGreaterThan")?.exclusiveMinimum)
  const below = num(checks.get("isLessThan")?.exclusiveMaximum)
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
  if (min !== undefined) return `${kind} of ${min} or more`
  if (max !== undefined) return `${kind} of ${max} or less`
  if (above !== undefined) return `${kind} greater than ${above}`
  if (below !== undefined) return `${kind} less than ${below}`
  return kind
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** Bounds on a length: " of at most 200 characters", " of 2 to 20 items"; whether at least one is needed. */
const lengthWords = (ast: SchemaAST.AST, unit: string) => {
  const checks = checksOf(ast)
  const between = checks.get("isBetweenLength")
  const min = num(between?.minimum) ?? num(checks.get("isMinLength")?.minLength) ?? 0
  const max = num(between?.maximum) ?? num(checks.get("isMaxLength")?.maxLength)
  if (min > 1) {
    return {
      nonEmpty: false,
      of: max === undefined ? ` of at least ${plural(min, unit)}` : ` of ${min} to ${plural(max, unit)}`
    }
  }
  return { nonEmpty: min === 1, of: max === undefined ? "" : ` of at most ${plural(max, unit)}` }
}

/** A format check's own words, when it says what the string must be ("must be an ISO 8601 UTC timestamp …"). */
const formatWords = (ast: SchemaAST.AST) =>
  checksAlong(ast).flatMap((filter) => {
    const representation = filter.annotations?.representation as Representation | undefined
    const message = stringOf(filter.annotations?.message)
    return representation?.id === "effect/schema/isPattern" && message?.startsWith("must be ")
      ? [message.slice("must be ".length)]
      : []
  })[0]

const stringWords = (ast: SchemaAST.AST) => {
  const format = formatWords(ast)
  if (format !== undefined) return format
  const { nonEmpty, of } = lengthWords(ast, "character")
  return `${nonEmpty ? "a non-empty string" : "a string"}${of}`
}

const arrayWords = (ast: SchemaAST.AST) => {
  const { nonEmpty, of } = lengthWords(ast, "item")
  return `${nonEmpty ? "a non-empty array" : "an array"}${of}`
}

/** A literal as the list of allowed values shows it: strings bare, the rest as written in JSON. */
const literalWords = (value: unknown) => typeof value === "string" ? value : String(value)

/** A literal on its own: a string quoted. */
const quoted = (value: unknown) => typeof value === "string" ? JSON.stringify(value) : String(value)

/** "a or b", "a, b, or c" (and "one of a, b, or null"). */
const alternatives = (words: ReadonlyArray<string>) =>
  words.length <= 1
    ? (words[0] ?? "")
    : words.length === 2 && !words[0]!.includes(",")
    ? `${words[0]} or ${words[1]}`
    : `${words.slice(0, -1).join(", ")}, or ${words.at(-1)}`

/** The allowed values listed once ("one of a, b, c"), then the other members, then null. */
const unionWords = (ast: SchemaAST.Union): string => {
  const literals: Array<unknown> = []
  const others: Array<string> = []
  let nullable = false
  const collect = (member: SchemaAST.AST) => {
    if (member._tag === "Null") nullable = true
    else if (member._tag === "Literal") literals.push(member.literal)
    else if (member._tag === "Boolean") literals.push(true, false)
    else if (member._tag === "Union") member.types.forEach(collect)
    else others.push(expectedWords(member))
  }
  ast.types.forEach(collect)
  const words = [
    ...(literals.length === 1 ? [quoted(literals[0])] : []),
    ...(literals.length > 1 ? [`one of ${literals.map(literalWords).join(", ")}`] : []),
    ...new Set(others),
    ...(nullable ? ["null"] : [])
  ]
  return words.length === 0 ? "a valid value" : alternatives(words)
}

/**
 * What `ast` accepts, in words: "a string of at most 200 characters", "an integer from 1 to
 * 100", "one of a, b, c", "an object or null". A number or boolean carried as text (a query
 * parameter) is described by what it decodes to; a declaration (a timestamp) by its JSON form.
 */
export const expectedWords = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "Suspend":
      return expectedWords(ast.thunk())
    case "Declaration": {
      const [inner] = ast.typeParameters
      if (inner !== undefined && inner._tag === "Objects") return "an object"
      const encoded = SchemaAST.toEncoded(ast)
      return encoded._tag === "Declaration" ? "a valid value" : expectedWords(encoded)
    }
    case "String":
      return stringWords(ast)
    case "Number":
      return numberWords(ast)
    case "Boolean":
      return "true or false"
    case "Literal":
      return quoted(ast.literal)
    case "Null":
      return "null"
    case "Objects":
      return "an object"
    case "ObjectKeyword":
      return "an object"
    case "Arrays":
      return arrayWords(ast)
    case "Union":
      return unionWords(ast)
    case "Enum":
      return `one of ${ast.enums.map(([, value]) => literalWords(value)).join(", ")}`
    case "TemplateLiteral":
      return "a string in the documented format"
    case "BigInt":
      return "an integer"
    default:
      return "a valid value"
  }
}

// ---------------------------------------------------------------------------------------------
// Walking an issue

/** The schema expected at `key` inside `ast`, when it can be told. */
const childAst = (ast: SchemaAST.AST | undefined, key: PropertyKey): SchemaAST.AST | undefined => {
  if (ast === undefined) return undefined
  switch (ast._tag) {
    case "Suspend":
      return childAst(ast.thunk(), key)
    case "Declaration": {
      const [inner] = ast.typeParameters
      return inner !== undefined && inner._tag === "Objects" ? childAst(inner, key) : undefined
    }
    case "Objects":
      return ast.propertySignatures.find((property) => property.name === key)?.type ??
        (typeof key === "string" ? ast.indexSignatures[0]?.type : undefined)
    case "Arrays":
      return typeof key === "number" ? (ast.elements[key] ?? ast.rest[0]) : undefined
    default:
      return undefined
  }
}

const knownKeys = (ast: SchemaAST.AST): Array<string> => {
  switch (ast._tag) {
    case "Objects":
      return ast.propertySignatures.flatMap((property) => typeof property.name === "string" ? [property.name] : [])
    case "Declaration": {
      const [inner] = ast.typeParameters
      return inner === undefined ? [] : knownKeys(inner)
    }
    default:
      return []
  }
}

/** Optimal string alignment distance (Levenshtein with transpositions), case-insensitive. */
const distance = (a: string, b: string) => {
  const [s, t] = [a.toLowerCase(), b.toLowerCase()]
  const d = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => i + j))
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const row = d[i]!
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1)
      }
    }
  }
  return d[s.length]![t.length]!
}

/** The known key `key` was most likely meant to be: the same but for case, or one or two typos away. */
export const closestKey = (key: string, known: ReadonlyArray<string>): string | undefined => {
  if (key.length > maxKeyLength) return undefined
  let best: { key: string; distance: number } | undefined
  for (const candidate of known) {
    const d = distance(key, candidate)
    const allowed = Math.min(2, Math.floor(Math.max(key.length, candidate.length) / 3))
    if (d <= allowed && (best === undefined || d < best.distance)) best = { key: candidate, distance: d }
  }
  return best?.key
}

const unknownKeyWords = (part: RequestPart, depth: number) =>
  part === "query" && depth === 1 ? "is not a known query parameter" : "is not a known field"

interface Walk {
  readonly part: RequestPart
  readonly found: Array<FieldIssue>
}

/** A message set on the schema for this issue (`message`, `messageMissingKey`, …), if any. */
const ownMessage = (issue: SchemaIssue.Issue): string | undefined => {
  switch (issue._tag) {
    case "Filter":
      return stringOf(issue.filter.annotations?.message) ??
        (issue.issue._tag === "InvalidValue" ? stringOf(issue.issue.annotations?.message) : undefined)
    case "InvalidValue":
    case "Forbidden":
      return stringOf(issue.annotations?.message)
    case "MissingKey":
      return stringOf(issue.annotations?.messageMissingKey)
    case "UnexpectedKey":
      return stringOf(issue.ast.annotations?.messageUnexpectedKey)
    case "InvalidType":
    case "OneOf":
    case "AnyOf":
      return stringOf(issue.ast.annotations?.message)
    default:
      return undefined
  }
}

/** What a filter checks, when the schema around it is not known. */
const filterWords = (filter: SchemaAST.Filter<unknown>) => {
  const expected = stringOf(filter.annotations?.expected)
  return expected === undefined || expected.startsWith("a string matching the RegExp")
    ? "is not valid"
    : `must be ${expected}`
}

const mustBe = (ast: SchemaAST.AST) => `must be ${expectedWords(ast)}`

/**
 * Collects the leaves of `issue` under `path`. `expected` is the schema expected there when the
 * walk could tell it (a struct's field, an array's element): a failed check or a wrong type is
 * then described by the whole field's schema ("must be an integer from 10 to 86400"), not only
 * by the part that failed. `override` is a message a check set for everything under it.
 */
const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  expected: SchemaAST.AST | undefined,
  state: Walk,
  override?: string
): void => {
  const add = (tag: IssueTag, message: string) => {
    state.found.push({ tag, path, message: override ?? message })
  }
  switch (issue._tag) {
    case "Pointer":
      return walk(
        issue.issue,
        [...path, ...issue.path],
        issue.path.reduce<SchemaAST.AST | undefined>(childAst, expected),
        state,
        override
      )
    case "Composite":
      // A struct's or an array's entries, each against its own schema (found from the container's);
      // or the checks of one value, described by the schema that holds them (the whole union when
      // it is a union's member, "… or null").
      for (const inner of issue.issues) {
        const here = inner._tag === "Pointer" || expected?._tag !== "Union" ? issue.ast : expected
        walk(inner, path, here, state, override)
      }
      return
    case "Encoding":
      return walk(issue.issue, path, expected ?? issue.ast, state, override)
    case "Filter": {
      if (issue.issue._tag !== "InvalidValue") {
        return walk(issue.issue, path, expected, state, override ?? stringOf(issue.filter.annotations?.message))
      }
      return add("Refinement", ownMessage(issue) ?? (expected ? mustBe(expected) : filterWords(issue.filter)))
    }
    case "AnyOf": {
      const own = ownMessage(issue)
      // One member was tried and failed (an object's fields, a check): report that, in the
      // union's words. Otherwise say what the union accepts, once rather than once per member.
      if (own === undefined && issue.issues.length === 1) {
        return walk(issue.issues[0]!, path, expected ?? issue.ast, state, override)
      }
      return add("Type", own ?? mustBe(expected ?? issue.ast))
    }
    case "InvalidType":
      return add("Type", ownMessage(issue) ?? mustBe(expected ?? issue.ast))
    case "InvalidValue": {
      const expectedText = stringOf(issue.annotations?.expected)
      return add(
        "Type",
        ownMessage(issue) ??
          (expected !== undefined ? mustBe(expected) : expectedText ? `must be ${expectedText}` : "is not valid")
      )
    }
    case "MissingKey":
      return add("Missing", ownMessage(issue) ?? "is required")
    case "UnexpectedKey": {
      const key = path.at(-1)
      const suggestion = typeof key === "string" ? closestKey(key, knownKeys(issue.ast)) : undefined
      const words = unknownKeyWords(state.part, path.length)
      return add("Unexpected", ownMessage(issue) ?? (suggestion ? `${words} (did you mean ${suggestion}?)` : words))
    }
    case "Forbidden":
      return add("Forbidden", ownMessage(issue) ?? "cannot be checked")
    case "OneOf":
      return add("Type", ownMessage(issue) ?? "matches more than one of the accepted forms")
  }
}

/** Path segments as answered: an input key is shortened, a symbol named by its description. */
const answeredPath = (path: ReadonlyArray<PropertyKey>): Array<PropertyKey> =>
  path.map((key) => typeof key === "string" ? shortKey(key) : key)

/** How a field's message may start: it follows the field's name in the sentence ("name is required"). */
const verb = /^(must|is|are|cannot|can|has|have|needs|should|applies|repeats|may|matches|goes)\b/

/** A schema's own message that is not worded to follow the field's name, made so. */
const predicate = (message: string) => verb.test(message) ? message : `is invalid: ${message}`

/**
 * One issue per offending field, in the order the schema found them; a field with several
 * problems (a value too long and with a NUL character) gets the first one found.
 */
export const fieldIssues = (issue: SchemaIssue.Issue, part: RequestPart = "body"): Array<FieldIssue> => {
  const state: Walk = { part, found: [] }
  walk(issue, [], undefined, state)
  const byPath = new Map<string, FieldIssue>()
  for (const found of state.found) {
    const key = JSON.stringify(found.path.map((segment) => typeof segment === "symbol" ? String(segment) : segment))
    if (!byPath.has(key)) {
      byPath.set(key, { tag: found.tag, path: answeredPath(found.path), message: predicate(found.message) })
    }
  }
  return [...byPath.values()]
}

/** A schema's refusal of one part of a request: the sentence and the issues (at most `maxIssues`). */
export const describeIssue = (issue: SchemaIssue.Issue, part: RequestPart = "body") => {
  const issues = fieldIssues(issue, part)
  return { message: summary(issues, part), issues: issues.slice(0, maxIssues) }
}
