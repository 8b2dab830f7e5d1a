/**
 * Value generators, all fast-check arbitraries so a seed reproduces them: valid values from an
 * operation's JSON schemas (with hints by field name where the schema alone cannot say what the
 * service accepts), invalid variants of them, and hostile values.
 */
import * as fc from "fast-check"

import { MonitorType } from "../../../src/domain/Monitor.js"
import type { JsonSchema } from "./openapi.js"

/** JSON text emitted verbatim by `toJsonText`: numbers JSON.stringify cannot write (1e400, -0, 2^53+1). */
export class RawJson {
  constructor(readonly text: string) {}
}

export const toJsonText = (value: unknown): string => {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(",")}}`
  }
  return value === undefined ? "null" : JSON.stringify(value)
}

/** Sets an own enumerable property, even `__proto__` (plain assignment would change the prototype). */
export const withKey = (object: object, key: string, value: unknown): Record<string, unknown> =>
  Object.defineProperty({ ...object }, key, { value, enumerable: true, writable: true, configurable: true })

const MEGABYTE = 1024 * 1024
const huge = "A".repeat(MEGABYTE)

/** Hostile strings: Unicode oddities, NUL and control characters, injections, number look-alikes, huge. */
export const hostileStrings: ReadonlyArray<string> = [
  "",
  " ",
  "   \t\n ",
  "\u0000",
  "a\u0000b",
  "\u0001\u0007\u001b[31m",
  "\r\nX-Injected: 1",
  "\uD83D\uDE00\uD83D\uDE00",
  "𝕳𝖊𝖑𝖑𝖔 𐍈 𓀀",
  "\u202Eevil\u202C",
  "مرحبا بالعالم",
  "שלום",
  "e\u0301\u0301\u0301",
  "\u200B\u200C\u200D\uFEFF",
  "\uD800",
  "\uDFFFx\uD800",
  "\uFFFF\uFFFE",
  "' OR '1'='1' --",
  "'; DROP TABLE components; --",
  "\" OR 1=1; --",
  "\\",
  "%",
  "_%_",
  "$1",
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "]]><![CDATA[",
  "&amp;&lt;&#0;",
  "../../../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "%2e%2e%2f%2e%2e%2f",
  "%00",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "${7*7}",
  "{{7*7}}",
  "%s%s%s%n",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e308",
  "1e400",
  "9007199254740993",
  "2147483648",
  "-2147483649",
  "0x10",
  " 1",
  "1.5",
  "-1",
  "true",
  "null",
  "undefined",
  "[]",
  "{}",
  "javascript:alert(1)",
  "http://127.0.0.1:9/\u0000",
  "http://[::1",
  "file:///etc/passwd",
  "x".repeat(101),
  "x".repeat(201),
  "x".repeat(2049),
  "x".repeat(5001),
  "😀".repeat(2000),
  "é".repeat(70_000)
]

const hugeStrings: ReadonlyArray<string> = [huge, "é".repeat(MEGABYTE / 2), `${huge}\u0000`]

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...hostileStrings), weight: 12 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }), weight: 2 }
)

/** Mostly `hostileString`, sometimes about a megabyte: for body fields, where size is what is tested. */
export const hostileFieldString: fc.Arbitrary<string> = fc.oneof(
  // Rare: a megabyte in costs both sides milliseconds, and some answers echo it several times.
  { arbitrary: hostileString, weight: 60 },
  { arbitrary: fc.constantFrom(...hugeStrings), weight: 1 }
)

/** Extreme numbers, some only expressible as raw JSON text. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    1e308,
    -1e308,
    5e-324,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 32,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    0,
    -1,
    0.5,
    1e21,
    new RawJson("-0"),
    new RawJson("9007199254740993"),
    new RawJson("1e400"),
    new RawJson("-1e400"),
    new RawJson("1.0"),
    new RawJson("123456789012345678901234567890"),
    new RawJson("0.0000000000000000000000000001"),
    "NaN",
    "1e308",
    "42"
  ),
  fc.double(),
  fc.integer()
)

/** Any hostile JSON value: for fields of any type. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: hostileNumber, weight: 3 },
  {
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      [],
      {},
      [null],
      { $gt: "" },
      JSON.parse("{\"__proto__\":{\"isAdmin\":true}}"),
      { constructor: { prototype: { polluted: true } } },
      Array.from({ length: 10_000 }, (_, i) => i),
      JSON.parse(`${"[".repeat(2000)}${"]".repeat(2000)}`)
    ),
    weight: 2
  }
)

export interface Context {
  readonly resolve: (schema: JsonSchema) => JsonSchema
  /**
   * An id for `{resource}`: one the fuzzer created when it has some, else a random UUID. One to
   * delete is never among the first few created, so updates and reads always have a target.
   */
  readonly idFor: (resource: string, purpose?: "delete") => fc.Arbitrary<string>
  readonly now: number
  /** An administrator's credentials, when the run was given them: the valid sign-in. */
  readonly signIn?: { readonly email: string; readonly password: string } | undefined
  /** Tokens of the confirmation links mailed to the fuzzer's subscribers so far. */
  readonly verifyTokens: () => ReadonlyArray<string>
  /** Address and token of the unsubscribe links mailed to them so far. */
  readonly unsubscribeLinks: () => ReadonlyArray<UnsubscribeLink>
  /** Cursors of the `Link: <…>; rel="next"` headers an operation answered so far. */
  readonly cursorsOf: (operationId: string) => ReadonlyArray<string>
  /** Cursors other lists answered: a list must refuse them. */
  readonly cursorsBesides: (operationId: string) => ReadonlyArray<string>
  /** The last `ETag` answered for a path (a resource's, or a public read's with its query). */
  readonly entityTagOf: (path: string) => string | undefined
  /** Tags the resource at a path had and has no more. */
  readonly staleEntityTagsOf: (path: string) => ReadonlyArray<string>
}

export interface UnsubscribeLink {
  readonly email: string
  readonly token: string
}

/** Mostly one of `known()` when there are any (read when a value is drawn), else `otherwise`. */
export const mostlyKnown = <A>(known: () => ReadonlyArray<A>, otherwise: fc.Arbitrary<A>): fc.Arbitrary<A> =>
  fc.tuple(fc.nat(3), fc.nat(), otherwise).map(([draw, pick, other]) => {
    const values = known()
    return values.length === 0 || draw === 0 ? other : values[pick % values.length]!
  })

/** Strings over `alphabet` (faster than fc.stringMatching, which costs milliseconds a value). */
export const charsOf = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength })
export const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

const DAY = 86_400_000
const iso = (millis: number) => new Date(millis).toISOString().replace(/\.\d{3}Z$/, "Z")
const allowsNull = (schema: JsonSchema) => (schema.anyOf ?? []).some((s: JsonSchema) => s.type === "null")
const orNull = <A>(schema: JsonSchema, arbitrary: fc.Arbitrary<A>): fc.Arbitrary<A | null> =>
  allowsNull(schema) ? fc.oneof(arbitrary, fc.constant(null)) : arbitrary
const text = (maxLength: number) => fc.string({ unit: "grapheme", maxLength }).map((s) => `fuzz ${s}`)

/**
 * What the service accepts for a field beyond its schema (bounds and formats the document does
 * not state). Target URLs are loopback ports nobody listens on: the fuzzer must not send
 * webhooks or probes to real hosts.
 */
const hint = (name: string, schema: JsonSchema, ctx: Context): fc.Arbitrary<unknown> | undefined => {
  switch (name) {
    case "url":
      return fc.constantFrom("http://127.0.0.1:9/fuzz-hook", "https://127.0.0.1:9/fuzz")
    case "logoUrl":
      return orNull(schema, fc.constant("http://127.0.0.1:9/logo.png"))
    case "email":
      return charsOf("abcdefghijklmnopqrstuvwxyz0123456789", 1, 16).map((local) => `fuzz-${local}@example.com`)
    case "password":
      return fc.string({ minLength: 12, maxLength: 40 })
    case "timezone":
      return fc.constantFrom("UTC", "Europe/Paris", "America/New_York", "Asia/Kathmandu")
    case "scheduledStart":
      return fc.integer({ min: 1, max: 30 }).map((days) => iso(ctx.now + days * DAY))
    case "scheduledEnd":
      return fc.integer({ min: 31, max: 60 }).map((days) => iso(ctx.now + days * DAY))
    case "expiresAt":
      return orNull(schema, fc.integer({ min: 1, max: 365 }).map((days) => iso(ctx.now + days * DAY)))
    case "componentId":
      return ctx.idFor("components")
    case "componentIds":
      return orNull(schema, fc.uniqueArray(ctx.idFor("components"), { maxLength: 3 }))
    case "templateId":
      return ctx.idFor("incident-templates")
    // Mostly none: a template or group the fuzzer deleted meanwhile makes the whole body a 404,
    // and a monitor's update already has few valid bodies among its cross-field rules.
    case "incidentTemplateId":
      return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, {
        weight: 1,
        arbitrary: ctx.idFor("incident-templates")
      })
    case "groupId":
      return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, {
        weight: 1,
        arbitrary: ctx.idFor("component-groups")
      })
    case "groupIds":
      return fc.uniqueArray(ctx.idFor("component-groups"), { maxLength: 2 })
    case "componentStatuses":
      return fc.uniqueArray(ctx.idFor("components"), { maxLength: 2 }).chain((ids) =>
        fc.tuple(...ids.map(() => fc.constantFrom("operational", "degraded", "partial_outage", "major_outage")))
          .map((statuses) => Object.fromEntries(ids.map((id, i) => [id, statuses[i]])))
      )
    // Only an update that resolves may restore; false is accepted with every status.
    case "restoreComponents":
      return fc.constant(false)
    case "recurrence":
      return orNull(
        schema,
        fc.record({
          frequency: fc.constantFrom("daily", "weekly", "monthly"),
          interval: fc.integer({ min: 1, max: 52 }),
          count: fc.integer({ min: 1, max: 1000 })
        })
      )
    case "regions":
      return orNull(schema, fc.constantFrom(["local"], ["eu-west", "us-east"]))
    case "intervalSeconds":
      return fc.integer({ min: 10, max: 86_400 })
    case "timeoutMs":
      return fc.integer({ min: 100, max: 9_000 })
    case "expectedStatusCode":
      return orNull(schema, fc.integer({ min: 100, max: 599 }))
    case "failureThreshold":
      return fc.integer({ min: 1, max: 10 })
    case "limit":
      return fc.integer({ min: 1, max: 100 }).map(String)
    case "offset":
      return fc.integer({ min: 0, max: 50 }).map(String)
    case "token":
      return mostlyKnown(ctx.verifyTokens, charsOf("0123456789abcdef", 64, 64))
    // A push URL's token, and the one a push monitor may be created with: mostly a known one (a
    // creation with it is 400, taken), else a UUID, which fits the pattern.
    case "pushToken":
      return ctx.idFor("push-tokens")
    case "name":
    case "title":
    case "message":
      return schema.type === "string" || schema.$ref !== undefined ? text(40) : undefined
    default:
      return undefined
  }
}

/** A value the service should accept for `schema` (the field named `name`, when it is one). */
export const validOf = (schema: JsonSchema, ctx: Context, name?: string): fc.Arbitrary<unknown> => {
  const hinted = name === undefined ? undefined : hint(name, schema, ctx)
  if (hinted !== undefined) return hinted
  const s = ctx.resolve(schema)
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
  if ("const" in s) return fc.constant(s.const)
  const union = s.anyOf ?? s.oneOf
  if (Array.isArray(union)) return fc.oneof(...union.map((member: JsonSchema) => validOf(member, ctx, name)))
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type: string) => validOf({ ...s, type }, ctx, name)))
  switch (s.type) {
    case "string":
      // A timestamp's pattern allows month 17 and day 94: a real date, within a few years of now.
      if (typeof s.pattern === "string" && s.pattern.startsWith("^\\d{4}-\\d{2}-\\d{2}T")) {
        return fc.integer({ min: -1000, max: 1000 }).map((days) => iso(ctx.now + days * DAY))
      }
      if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern))
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) })
    case "integer":
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 })
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array":
      return fc.array(validOf(s.items ?? {}, ctx), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 3)
      })
    default: {
      if (s.type !== "object" && s.properties === undefined) return fc.constant("fuzz")
      const properties: Record<string, JsonSchema> = s.properties ?? {}
      // A read-only property has no valid value in a request (a series' `recurrence` on update).
      const model = Object.fromEntries(
        Object.entries(properties)
          .filter(([, property]) => ctx.resolve(property).readOnly !== true)
          .map(([key, property]) => [key, validOf(property, ctx, key)])
      )
      const record: fc.Arbitrary<Record<string, unknown>> = (fc.record as any)(model, {
        requiredKeys: s.required ?? []
      })
        .map(consistent)
      // An unsubscribe names an address and its token: a pair from the mail, or nothing that works.
      if (!("email" in properties && "token" in properties)) return record
      return fc.tuple(record, mostlyKnown<UnsubscribeLink | undefined>(ctx.unsubscribeLinks, fc.constant(undefined)))
        .map(([value, link]) => (link === undefined ? value : { ...value, email: link.email, token: link.token }))
    }
  }
}

const monitorTypes = new Set<string>(MonitorType.literals)
const httpOnlyFields = [
  "method",
  "headers",
  "body",
  "expectedStatusCodes",
  "bodyContains",
  "bodyNotContains",
  "assertions"
]
const dnsOnlyFields = ["dnsRecordType", "dnsExpectedValues"]
/** The fields of the other types, each of one type or a few. */
const otherTypeFields = ["password", "grpcService", "pingCount", "graceSeconds", "pushToken"]
const passwordTypes = new Set(["postgres", "mysql", "redis", "mqtt", "amqp"])
/** Targets on loopback ports nobody listens on: the probes of the bed check them and fail. */
const targetOf: Record<string, string> = {
  tcp: "tcp://127.0.0.1:9",
  ssl_expiry: "https://127.0.0.1:9",
  icmp: "127.0.0.1",
  grpc: "grpc://127.0.0.1:9",
  postgres: "postgres://fuzz@127.0.0.1:9/fuzz",
  mysql: "mysql://fuzz@127.0.0.1:9/fuzz",
  redis: "redis://127.0.0.1:9",
  mqtt: "mqtt://127.0.0.1:9",
  amqp: "amqp://fuzz@127.0.0.1:9"
}
const without = (value: Record<string, unknown>, keys: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)))

/**
 * Makes fields that depend on each other agree, so that valid requests are accepted
 * (docs/monitor-fleet.md, "Monitor settings"): a monitor's target and the fields of its type
 * depend on its type, a body goes with POST, a HEAD has no body to check, an integer quorum fits
 * the regions named. An update that does not name the type keeps only the fields of every type.
 */
/**
 * A configuration to apply or a bundle to import, as one that can succeed: an apply never
 * prunes (it would delete the bed the other operations and scenarios work on), and an import's
 * incidents name no components and it brings no subscribers (its keys are drawn at random, and
 * name nothing the bundle defines).
 */
const consistentConfiguration = (value: Record<string, unknown>): Record<string, unknown> => {
  if ("document" in value) return { ...value, prune: false }
  if (!("bundle" in value) || typeof value.bundle !== "object" || value.bundle === null) return value
  const { componentStatuses: _statuses, incidents, subscribers: _subscribers, ...bundle } = value.bundle as Record<
    string,
    unknown
  >
  return {
    ...value,
    bundle: {
      ...bundle,
      ...(Array.isArray(incidents)
        ? { incidents: incidents.map((incident: Record<string, unknown>) => ({ ...incident, components: [] })) }
        : {})
    }
  }
}

const consistent = (value: Record<string, unknown>): Record<string, unknown> => {
  if ("document" in value || "bundle" in value) return consistentConfiguration(value)
  const isMonitor = "intervalSeconds" in value || "failureThreshold" in value || "quorum" in value ||
    monitorTypes.has(value.type as string)
  if (!isMonitor) return value
  let monitor = value
  if (typeof monitor.quorum === "number" && Array.isArray(monitor.regions) && monitor.quorum > monitor.regions.length) {
    monitor = { ...monitor, quorum: "majority" }
  }
  switch (monitor.type) {
    case undefined:
      return without(monitor, [...httpOnlyFields, ...dnsOnlyFields, ...otherTypeFields])
    case "push": {
      // The service makes its URL and its one region; a known token would be taken: a new one is made.
      monitor = without(monitor, [
        ...httpOnlyFields,
        ...dnsOnlyFields,
        ...otherTypeFields.filter((field) => field !== "graceSeconds"),
        "expectedStatusCode",
        "url",
        "regions",
        "quorum"
      ])
      const interval = typeof monitor.intervalSeconds === "number" ? monitor.intervalSeconds : 60
      return typeof monitor.graceSeconds === "number" && monitor.graceSeconds > interval
        ? { ...monitor, graceSeconds: interval }
        : monitor
    }
    case "http": {
      monitor = without(monitor, [...dnsOnlyFields, ...otherTypeFields])
      if ("expectedStatusCode" in monitor) monitor = without(monitor, ["expectedStatusCodes"])
      if (monitor.body !== undefined && monitor.body !== null) monitor = { ...monitor, method: "POST" }
      if (monitor.method === "HEAD") monitor = without(monitor, ["bodyContains", "bodyNotContains", "assertions"])
      // A path, op and value that agree (the schema's rules across them are not in the document): one that does.
      if (Array.isArray(monitor.assertions)) {
        monitor = { ...monitor, assertions: [{ path: "$.status", op: "==", value: "ok" }] }
      }
      // Header names must be tokens and some are the check's own: one the check accepts.
      if (monitor.headers !== undefined && monitor.headers !== null) {
        monitor = { ...monitor, headers: { "X-Fuzz": "1" } }
      }
      return monitor
    }
    case "dns":
      // Probes of the system suite ask a closed loopback resolver (PROBE_DNS_SERVERS): no query leaves the machine.
      monitor = {
        ...without(monitor, [...httpOnlyFields, ...otherTypeFields, "expectedStatusCode"]),
        url: "fuzz.invalid"
      }
      // A and AAAA records (A is the default) expect addresses: one of the right family.
      if (Array.isArray(monitor.dnsExpectedValues) && monitor.dnsExpectedValues.length > 0) {
        const type = monitor.dnsRecordType ?? "A"
        if (type === "A") monitor = { ...monitor, dnsExpectedValues: ["127.0.0.1"] }
        if (type === "AAAA") monitor = { ...monitor, dnsExpectedValues: ["::1"] }
      }
      return monitor
    default: {
      const type = monitor.type as string
      const own = [
        ...(passwordTypes.has(type) ? ["password"] : []),
        ...(type === "grpc" ? ["grpcService"] : []),
        ...(type === "icmp" ? ["pingCount"] : [])
      ]
      return {
        ...without(monitor, [
          ...httpOnlyFields,
          ...dnsOnlyFields,
          ...otherTypeFields.filter((field) => !own.includes(field)),
          "expectedStatusCode"
        ]),
        url: targetOf[type] ?? "https://127.0.0.1:9"
      }
    }
  }
}

/** A JSON value whose type is not one `schema` allows. */
const wrongTypeFor = (schema: JsonSchema, ctx: Context, pick: number): unknown => {
  const s = ctx.resolve(schema)
  const allowed = new Set<string>(
    [s.type, ...(s.anyOf ?? []).map((m: JsonSchema) => ctx.resolve(m).type)].flat().filter((t) => typeof t === "string")
  )
  if (allowed.has("integer")) allowed.add("number")
  const candidates: Array<[string, unknown]> = [
    ["number", 12345],
    ["number", 1.5],
    ["string", "not the right type"],
    ["boolean", true],
    ["null", null],
    ["array", ["x"]],
    ["object", { nested: "object" }]
  ]
  const wrong = candidates.filter(([type]) => !allowed.has(type))
  return wrong.length === 0 ? new RawJson("1e400") : wrong[pick % wrong.length]![1]
}

/** Breaks one rule of `schema` in an otherwise valid value: type, presence, bounds, enum, unknown keys. */
export const invalidOf = (schema: JsonSchema, ctx: Context): fc.Arbitrary<unknown> =>
  fc.tuple(validOf(schema, ctx), fc.nat(), fc.nat(), hostileValue).map(([valid, which, pick, hostile]) => {
    const s = ctx.resolve(schema)
    const properties: Record<string, JsonSchema> = s.properties ?? {}
    const keys = Object.keys(properties)
    if (typeof valid !== "object" || valid === null || Array.isArray(valid) || keys.length === 0 || which % 10 === 0) {
      return [[], "a string body", 42, null, true, [valid]][pick % 6]
    }
    const object = valid as Record<string, unknown>
    const key = keys[pick % keys.length]!
    const property = ctx.resolve(properties[key]!)
    switch (which % 9) {
      case 1: {
        const required: Array<string> = s.required ?? []
        if (required.length === 0) return withKey(object, "unexpectedField", hostile)
        const { [required[pick % required.length]!]: _missing, ...rest } = object
        return rest
      }
      case 2:
        return withKey(object, ["unexpectedField", "__proto__", "constructor", "id", "createdAt"][pick % 5]!, hostile)
      case 3:
        return { ...object, [key]: wrongTypeFor(property, ctx, pick) }
      case 4:
        if (typeof property.maxLength === "number") return { ...object, [key]: "x".repeat(property.maxLength + 1) }
        return { ...object, [key]: "" }
      case 5:
        if (typeof property.maximum === "number") return { ...object, [key]: property.maximum + 1 }
        if (typeof property.minimum === "number") return { ...object, [key]: property.minimum - 1 }
        return { ...object, [key]: pick % 2 === 0 ? -1 : 0.5 }
      case 6:
        return { ...object, [key]: Array.isArray(property.enum) ? `${property.enum[0]}X` : "   " }
      case 7:
        return { ...object, [key]: [object[key], object[key]] }
      default:
        return { ...object, [key]: null }
    }
  })

/** A valid value with some of its fields replaced by hostile ones. */
export const hostileOf = (schema: JsonSchema, ctx: Context): fc.Arbitrary<unknown> =>
  fc.tuple(
    validOf(schema, ctx),
    fc.array(fc.tuple(fc.nat(), hostileFieldString, hostileValue), { minLength: 1, maxLength: 3 })
  )
    .map(([valid, replacements]) => {
      if (typeof valid !== "object" || valid === null || Array.isArray(valid)) return replacements[0]![2]
      const properties: Record<string, JsonSchema> = ctx.resolve(schema).properties ?? {}
      const keys = Object.keys(properties)
      let object = valid as Record<string, unknown>
      for (const [pick, string, any] of replacements) {
        if (keys.length === 0) return withKey(object, string.slice(0, 100) || "__proto__", any)
        const key = keys[pick % keys.length]!
        const type = ctx.resolve(properties[key]!).type
        // Mostly a hostile value of the field's own type, so it passes the type check and reaches the service.
        object = { ...object, [key]: pick % 3 === 0 ? any : type === "string" || type === undefined ? string : any }
      }
      return object
    })
