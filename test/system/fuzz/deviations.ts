/**
 * Deviations: an otherwise valid request made wrong in exactly one way the strict API must
 * refuse (category `strict`), each with what the answer must be: an unknown body field at any
 * depth (where the document closes the object with `additionalProperties: false`), an unknown
 * query parameter, a bad value for a declared one (out of bounds, not an integer, an altered
 * cursor), an `If-Match` that cannot hold or is malformed, a malformed `Idempotency-Key`. Near
 * misses (`ispublic` for `isPublic`, `limt`) are what a client actually sends.
 *
 * Choices are drawn from numbers fast-check gave (`Roll`), so a deviation made from what the run
 * has learned (cursors, entity tags) still replays with its seed.
 */
import type { JsonSchema } from "./openapi.js"
import { withKey } from "./values.js"

/** What a deliberately wrong request must get: not a 2xx, and a 400 must name `path` in an issue. */
export interface Expectation {
  readonly kind: "unknownField" | "unknownQuery" | "badQueryValue" | "ifMatch" | "idempotencyKey"
  /** In words, for the finding: `the unknown field recurrence.frequncy`, `limit=abc`. */
  readonly what: string
  /** The issue path a 400 must name; undefined when any refusal will do (an If-Match that does not hold: 412, or 404). */
  readonly path: ReadonlyArray<string | number> | undefined
}

/** An integer in [0, n). */
export type Roll = (n: number) => number

export const roller = (numbers: ReadonlyArray<number>): Roll => {
  let i = 0
  return (n) => (n <= 0 || numbers.length === 0 ? 0 : numbers[i++ % numbers.length]! % n)
}

const pick = <A>(roll: Roll, values: ReadonlyArray<A>): A => values[roll(values.length)]!

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const unique = (values: ReadonlyArray<string>) => [...new Set(values)]

/** Typos of a name, as clients make them: case, snake_case, a letter dropped, two swapped, one doubled, a plural. */
export const nearMisses = (name: string): Array<string> => {
  const middle = Math.floor(name.length / 2)
  const variants = [
    name.toLowerCase(),
    name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
    name.length > 3 ? name.slice(0, middle) + name.slice(middle + 1) : name,
    name.length > 3 ? name.slice(0, middle - 1) + name[middle] + name[middle - 1] + name.slice(middle + 1) : name,
    name.slice(0, middle) + name[middle] + name.slice(middle),
    name.endsWith("s") ? name.slice(0, -1) : `${name}s`
  ]
  return unique(variants).filter((variant) => variant !== name && variant.length > 0)
}

// ---------------------------------------------------------------------------------------------
// Unknown body fields

/** Names no request schema declares, some of which a careless parser treats specially. */
const foreignFieldNames = [
  "unknownField",
  "extra",
  "isAdmin",
  "role",
  "organizationId",
  "id",
  "createdAt",
  "updatedAt",
  "__proto__",
  "constructor",
  "toString",
  "$where",
  ""
]

/** An object in a value whose schema is closed: any field it does not declare is unknown. */
export interface ClosedObject {
  readonly path: ReadonlyArray<string | number>
  readonly properties: ReadonlyArray<string>
}

/** The member of a union that describes `value`'s kind (object or array), resolved. */
const memberFor = (schema: JsonSchema, value: unknown, resolve: (s: JsonSchema) => JsonSchema) => {
  const s = resolve(schema)
  const members: Array<JsonSchema> = (s.anyOf ?? s.oneOf ?? [s]).map(resolve)
  const kind = Array.isArray(value) ? "array" : "object"
  return members.find((member) =>
    member.type === kind || (kind === "object" && member.type === undefined && member.properties !== undefined)
  )
}

/**
 * The objects of `value` whose schema says `additionalProperties: false`, with their paths. A
 * record (`additionalProperties` a schema, like a monitor's `headers`) takes any key: not listed,
 * though objects inside it may be.
 */
export const closedObjects = (
  schema: JsonSchema,
  value: unknown,
  resolve: (s: JsonSchema) => JsonSchema,
  path: ReadonlyArray<string | number> = []
): Array<ClosedObject> => {
  if (!isObject(value) && !Array.isArray(value)) return []
  const s = memberFor(schema, value, resolve)
  if (s === undefined) return []
  if (Array.isArray(value)) {
    return s.items === undefined ? [] : value.flatMap((item, i) => closedObjects(s.items, item, resolve, [...path, i]))
  }
  const properties: Record<string, JsonSchema> = s.properties ?? {}
  const here = s.additionalProperties === false ? [{ path, properties: Object.keys(properties) }] : []
  const inside = Object.entries(value).flatMap(([key, field]) => {
    const fieldSchema = properties[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined)
    return fieldSchema === undefined ? [] : closedObjects(fieldSchema, field, resolve, [...path, key])
  })
  return [...here, ...inside]
}

const valueAt = (value: unknown, path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>((at, step) => (at as Record<string | number, unknown>)[step], value)

/** A copy of `value` with `key` set in the object at `path` (own property even for `__proto__`). */
const withFieldAt = (value: unknown, path: ReadonlyArray<string | number>, key: string, field: unknown): unknown => {
  if (path.length === 0) return withKey(value as object, key, field)
  const [step, ...rest] = path
  if (Array.isArray(value)) return value.map((item, i) => (i === step ? withFieldAt(item, rest, key, field) : item))
  return withKey(
    value as object,
    String(step),
    withFieldAt((value as Record<string, unknown>)[step!], rest, key, field)
  )
}

const describePath = (path: ReadonlyArray<string | number>) =>
  path.map((step, i) => (typeof step === "number" ? `[${step}]` : i === 0 ? step : `.${step}`)).join("") || "\"\""

/**
 * `value` (valid for `schema`) with one unknown field in one of its closed objects: half the
 * time a near miss of a field declared there, carrying that field's value; otherwise a foreign
 * name. Undefined when the value has no closed object (a null body).
 */
export const withUnknownField = (
  schema: JsonSchema,
  value: unknown,
  resolve: (s: JsonSchema) => JsonSchema,
  roll: Roll
): { readonly value: unknown; readonly expect: Expectation } | undefined => {
  const closed = closedObjects(schema, value, resolve)
  if (closed.length === 0) return undefined
  const { path, properties } = pick(roll, closed)
  const object = valueAt(value, path) as Record<string, unknown>
  const taken = new Set([...properties, ...Object.keys(object)])
  const misses = properties.flatMap((name) =>
    nearMisses(name).filter((miss) => !taken.has(miss)).map((miss) => [miss, name] as const)
  )
  const foreign = foreignFieldNames.filter((name) => !taken.has(name))
  let name: string
  let field: unknown
  if (misses.length > 0 && (roll(2) === 0 || foreign.length === 0)) {
    const [miss, of] = pick(roll, misses)
    name = miss
    field = of in object ? object[of] : true
  } else {
    name = pick(roll, foreign)
    field = pick(roll, [true, 1, "fuzz", null, {}])
  }
  const fieldPath = [...path, name]
  return {
    value: withFieldAt(value, path, name, field),
    expect: { kind: "unknownField", what: `the unknown field ${describePath(fieldPath)}`, path: fieldPath }
  }
}

// ---------------------------------------------------------------------------------------------
// Query parameters

const foreignParameterNames = [
  "page",
  "per_page",
  "sort",
  "q",
  "fields",
  "expand",
  "unknown",
  "__proto__",
  "constructor"
]

/** A query parameter the operation does not declare: a near miss of one it does, or a common one. */
export const unknownParameter = (declared: ReadonlyArray<string>, roll: Roll): string => {
  const taken = new Set(declared)
  const misses = declared.flatMap(nearMisses).filter((name) => !taken.has(name))
  const foreign = foreignParameterNames.filter((name) => !taken.has(name))
  return misses.length > 0 && roll(2) === 0 ? pick(roll, misses) : pick(roll, foreign)
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** `length` characters of `alphabet`, spread from one number drawn (the few drawn would repeat over a long text). */
const randomText = (roll: Roll, alphabet: string, length: number) => {
  let state = roll(2 ** 31)
  return Array.from({ length }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 1
    return alphabet[state % alphabet.length]
  }).join("")
}

/**
 * A cursor no list gave: a real one altered (a character changed anywhere but the last, whose
 * low bits base64 may not use; or cut in half), another list's, or made up.
 */
export const tamperedCursor = (own: ReadonlyArray<string>, others: ReadonlyArray<string>, roll: Roll): string => {
  const choices: Array<() => string> = [() => randomText(roll, BASE64URL, 8 + roll(40))]
  if (others.length > 0) choices.push(() => pick(roll, others))
  const usable = own.filter((cursor) => cursor.length >= 2)
  if (usable.length > 0) {
    // Cut short. Not a character changed: a cursor names a position, and one changed inside a
    // value of its sort key may name another valid position, which pages from there (docs/api.md).
    choices.push(() => {
      const cursor = pick(roll, usable)
      return cursor.slice(0, Math.max(1, Math.floor(cursor.length / 2)))
    })
  }
  return pick(roll, choices)()
}

/** Values the parameter's schema refuses: not an integer, out of its bounds, not one of its values, too long. */
export const badValuesOf = (schema: JsonSchema, resolve: (s: JsonSchema) => JsonSchema): Array<string> => {
  const s = resolve(schema)
  if (s.type === "integer" || s.type === "number") {
    return [
      "abc",
      ...(s.type === "integer" ? ["1.5"] : []),
      "NaN",
      ...(typeof s.minimum === "number" ? [String(s.minimum - 1)] : []),
      ...(typeof s.maximum === "number" ? [String(s.maximum + 1)] : [])
    ]
  }
  if (Array.isArray(s.enum)) {
    const known = new Set(s.enum.map(String))
    return unique([`${s.enum[0]}x`, ...s.enum.map((v: unknown) => String(v).toUpperCase())])
      .filter((value) => !known.has(value))
  }
  if (s.type === "string") {
    const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : undefined
    return [
      ...(typeof s.maxLength === "number" ? ["x".repeat(s.maxLength + 1)] : []),
      ...(pattern === undefined ? [] : ["a b", "a/b+c=", "é", "<x>"].filter((value) => !pattern.test(value)))
    ]
  }
  return []
}

// ---------------------------------------------------------------------------------------------
// Headers of writes

const malformedIfMatch = ["abc", "\"unterminated", "W/abc", "\"a\" \"b\"", "\"a b\"", ",", "**"]

/**
 * An `If-Match` the write must not pass: a tag the resource never had, one it had before a
 * change (stale), a weak tag (never matches: If-Match compares strongly), a list of strangers
 * (412, or 404 for an unknown id); or a value that is not `*` nor a list of quoted tags (400
 * naming the header).
 */
export const failingIfMatch = (
  current: string | undefined,
  stale: ReadonlyArray<string>,
  roll: Roll
): { value: string; expect: Expectation } => {
  const stranger = () => `"fuzz-${randomText(roll, BASE64URL, 12)}"`
  const cannotHold = (value: string, why: string): { value: string; expect: Expectation } => ({
    value,
    expect: { kind: "ifMatch", what: `If-Match ${value} (${why})`, path: undefined }
  })
  switch (roll(5)) {
    case 0:
      return cannotHold(stranger(), "a tag it never had")
    case 1:
      return stale.length > 0 ? cannotHold(pick(roll, stale), "stale") : cannotHold(stranger(), "a tag it never had")
    case 2:
      return cannotHold(`W/${current ?? stranger()}`, "weak")
    case 3:
      return cannotHold(`${stranger()}, ${stranger()}`, "tags it never had")
    default: {
      const value = pick(roll, malformedIfMatch)
      return { value, expect: { kind: "ifMatch", what: `the malformed If-Match ${value}`, path: ["If-Match"] } }
    }
  }
}

/** Keys outside 1-255 printable ASCII characters (that Node still sends). */
const malformedKeys = ["x".repeat(256), "a\tb", "clé"]

export const malformedIdempotencyKey = (roll: Roll): { value: string; expect: Expectation } => {
  const value = pick(roll, malformedKeys)
  return {
    value,
    expect: {
      kind: "idempotencyKey",
      what: `the malformed Idempotency-Key ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`,
      path: ["Idempotency-Key"]
    }
  }
}
