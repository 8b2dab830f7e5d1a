/**
 * The hand-written result decoder against the schema it stands in for: on arbitrary reports
 * (valid ones, and ones mutated into wrong types, strings over their caps, extra, missing and
 * prototype-polluting keys, numbers only raw JSON can say), ingest's decoding of a results
 * stream's entry accepts exactly what the schema alone accepts, and yields the same value.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import * as fc from "fast-check"

import {
  CheckResult,
  errorMaxLength,
  maxReportedMillis,
  maxReportedMs,
  maxSslDays,
  MissedCheck,
  reportedMaxLength,
  reportWindowMs
} from "../../src/domain/CheckJob.js"
import { decodeCheckResultFast } from "../../src/domain/decodeCheckResultFast.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { decodeResultEntry } from "../../src/queue/redis/RedisJobTransport.js"
import { hostileValue, RawJson, toJsonText, withKey } from "../system/fuzz/values.js"

const union = Schema.Union([CheckResult, MissedCheck, ProbeHeartbeat])
/** Ingest's decoder before the hand-written one. */
const schemaDecodeText = Schema.decodeUnknownOption(Schema.fromJsonString(union))
const schemaDecodeValue = Schema.decodeUnknownOption(union)

const prototypes = new Map<unknown, string>([
  [null, "null"],
  [Object.prototype, "Object"],
  [Array.prototype, "Array"],
  [MissedCheck.prototype, "MissedCheck"],
  [ProbeHeartbeat.prototype, "ProbeHeartbeat"]
])

/**
 * A value as a tree toEqual compares strictly: every object's prototype, its own keys in order
 * (symbols included) with their enumerability, and primitives by type and exact value (-0 is not 0).
 */
const shape = (value: unknown): unknown => {
  if (typeof value === "number") return Object.is(value, -0) ? "number -0" : `number ${value}`
  if (typeof value !== "object" || value === null) {
    return value === undefined ? "undefined" : `${typeof value} ${JSON.stringify(value)}`
  }
  return {
    prototype: prototypes.get(Object.getPrototypeOf(value)) ?? "another",
    keys: Reflect.ownKeys(value).map((key) => [
      String(key),
      Object.getOwnPropertyDescriptor(value, key)!.enumerable,
      shape((value as Record<PropertyKey, unknown>)[key])
    ])
  }
}

const raw = (text: string) => new RawJson(text)

/** Strings for a field of `min`..`max` characters: mostly within, some at and just past the bounds, some not storable. */
const textFor = (min: number, max: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 24) }) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(0, 1, max - 1, max, max + 1), fc.constantFrom("x", "é", "\u20ac")).map((
        [length, char]
      ) => char.repeat(length))
    },
    // Surrogate pairs count two: at the cap in pairs, and one unit past it.
    { weight: 1, arbitrary: fc.constantFrom("😀".repeat(Math.floor(max / 2)), `${"😀".repeat(Math.floor(max / 2))}x`) },
    // Any UTF-16 units: lone surrogates, NUL, control characters.
    {
      weight: 2,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
        maxLength: 12
      })
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom("\u0000", "a\u0000b", "\uD800", "x\uDC00y", "\uDFFF\uD800", "\uD83D\uDE00", "")
    },
    { weight: 1, arbitrary: hostileValue }
  )

const millis = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 2_000_000_000_000 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      0,
      maxReportedMillis,
      maxReportedMillis + 1,
      -1,
      1.5,
      2 ** 53,
      2 ** 53 - 1,
      raw("-0"),
      raw("1e400"),
      raw("1.0"),
      raw("9007199254740993"),
      "1700000000000",
      null
    )
  },
  { weight: 1, arbitrary: hostileValue }
)

/** A time near `scheduledAt`: within the report window, at its edges, or just past them. */
const nearBy = (scheduledAt: unknown): fc.Arbitrary<unknown> =>
  typeof scheduledAt === "number"
    ? fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -1000, max: 120_000 }).map((delta) => scheduledAt + delta) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(-reportWindowMs - 1, -reportWindowMs, reportWindowMs, reportWindowMs + 1).map((
          delta
        ) => scheduledAt + delta)
      },
      { weight: 1, arbitrary: millis }
    )
    : millis

const duration = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: 0, max: maxReportedMs, noNaN: true }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      0,
      maxReportedMs,
      maxReportedMs + 0.001,
      -0.001,
      -1,
      1e308,
      5e-324,
      raw("-0"),
      raw("1e400"),
      raw("-1e400"),
      raw("1e-400"),
      "5",
      true
    )
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: hostileValue }
)

const timing = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: duration })

const intOrNull = (min: number, max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 6, arbitrary: fc.integer({ min, max }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<unknown>(
        min - 1,
        min,
        max,
        max + 1,
        (min + max) / 2 + 0.5,
        raw("2e2"),
        raw("200.0"),
        "200"
      )
    },
    { weight: 1, arbitrary: hostileValue }
  )

const traceparent = fc.constantFrom<unknown>(
  `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01`,
  `00-${"0".repeat(32)}-${"cd".repeat(8)}-01`,
  `00-${"AB".repeat(16)}-${"cd".repeat(8)}-01`,
  `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01x`,
  "",
  null,
  42,
  {},
  ["00"]
)

/** Every field of a result but `checkedAt` (drawn from `scheduledAt`) and `traceparent` (optional). */
const requiredKeys = [
  "jobId",
  "monitorId",
  "region",
  "probe",
  "scheduledAt",
  "ok",
  "durationMs",
  "timings",
  "statusCode",
  "error",
  "sslDaysLeft"
] as const

const resultFields = fc.record({
  jobId: textFor(0, reportedMaxLength.jobId),
  monitorId: textFor(1, reportedMaxLength.monitorId),
  region: textFor(1, reportedMaxLength.region),
  probe: textFor(0, reportedMaxLength.probe),
  scheduledAt: millis,
  ok: fc.oneof({ weight: 9, arbitrary: fc.boolean() }, { weight: 1, arbitrary: hostileValue }),
  durationMs: duration,
  timings: fc.record({ dnsMs: timing, connectMs: timing, tlsMs: timing, firstByteMs: timing }),
  statusCode: intOrNull(100, 599),
  error: fc.oneof(fc.constant(null), textFor(0, errorMaxLength)),
  sslDaysLeft: intOrNull(-maxSslDays, maxSslDays),
  traceparent
}, { requiredKeys: [...requiredKeys] })

/** A result whose every field is valid most of the time. */
const result: fc.Arbitrary<Record<string, unknown>> = resultFields.chain(({ scheduledAt, ...fields }) =>
  nearBy(scheduledAt).map((checkedAt) => ({ ...fields, scheduledAt, checkedAt }))
)

/** Valid text of `min`..`max` characters, at the bounds too; storable, surrogate pairs included. */
const validText = (min: number, max: number) =>
  fc.oneof(
    fc.string({ minLength: min, maxLength: Math.min(max, 24) }),
    fc.string({ unit: "grapheme", minLength: min, maxLength: Math.floor(max / 8) }),
    fc.constantFrom("x".repeat(max), "é".repeat(max), "😀".repeat(Math.floor(max / 2)), "x".repeat(Math.max(min, 1)))
  )
const validDuration = fc.oneof(
  fc.double({ min: 0, max: maxReportedMs, noNaN: true }),
  fc.constantFrom<unknown>(0, maxReportedMs, 5e-324, raw("-0"), raw("1e-400"), raw("1.50"))
)
const validTiming = fc.oneof(fc.constant(null), validDuration)

/** A valid result, its values often at their bounds. */
const validResult: fc.Arbitrary<Record<string, unknown>> = fc.record({
  jobId: validText(0, reportedMaxLength.jobId),
  monitorId: validText(1, reportedMaxLength.monitorId),
  region: validText(1, reportedMaxLength.region),
  probe: validText(0, reportedMaxLength.probe),
  scheduledAt: fc.oneof(
    fc.integer({ min: reportWindowMs, max: 2_000_000_000_000 }),
    fc.constantFrom<unknown>(0, maxReportedMillis, raw("-0"), raw("1e3"), raw("1.0"))
  ),
  ok: fc.boolean(),
  durationMs: validDuration,
  timings: fc.record({ dnsMs: validTiming, connectMs: validTiming, tlsMs: validTiming, firstByteMs: validTiming }),
  statusCode: fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 599 })),
  error: fc.oneof(fc.constant(null), validText(0, errorMaxLength)),
  sslDaysLeft: fc.oneof(fc.constant(null), fc.integer({ min: -maxSslDays, max: maxSslDays })),
  traceparent
}, { requiredKeys: [...requiredKeys] }).chain((fields) =>
  fc.integer({ min: -reportWindowMs, max: reportWindowMs }).map((delta) => {
    const at = fields.scheduledAt
    const scheduledAt = typeof at === "number" ? at : at instanceof RawJson ? Number(at.text) : 0
    const checkedAt = Math.min(maxReportedMillis, Math.max(0, scheduledAt + delta))
    return { ...fields, checkedAt }
  })
)

const missed: fc.Arbitrary<Record<string, unknown>> = result.chain((fields) =>
  nearBy(fields.scheduledAt).chain((recordedAt) =>
    fc.constantFrom<unknown>("late", "bored", null).map((reason) => ({
      _tag: "MissedCheck",
      jobId: fields.jobId,
      monitorId: fields.monitorId,
      region: fields.region,
      probe: fields.probe,
      scheduledAt: fields.scheduledAt,
      recordedAt,
      reason
    }))
  )
)

const heartbeat: fc.Arbitrary<Record<string, unknown>> = fc.record({
  _tag: fc.constant("ProbeHeartbeat"),
  name: fc.oneof(fc.constantFrom("probe-1", "host.example-42", "bad name", ""), textFor(1, 128)),
  version: textFor(0, 64),
  startedAt: millis,
  sentAt: millis,
  concurrency: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(0, 10_001)),
  checksLastMinute: fc.nat(),
  lagMs: fc.nat(),
  inFlight: fc.nat()
})

const fieldNames = [
  "jobId",
  "monitorId",
  "region",
  "probe",
  "scheduledAt",
  "checkedAt",
  "ok",
  "durationMs",
  "timings",
  "statusCode",
  "error",
  "sslDaysLeft",
  "traceparent",
  "recordedAt",
  "reason",
  "name"
]
const extraNames = ["_tag", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "extra"]
const timingNames = ["dnsMs", "connectMs", "tlsMs", "firstByteMs"]

type Mutation = (report: Record<string, unknown>) => Record<string, unknown>

const without = (object: object, key: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(object).filter(([name]) => name !== key))

/** What a compromised probe might change in a report. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom(...fieldNames).map((key): Mutation => (report) => without(report, key)),
  fc.tuple(fc.constantFrom(...fieldNames, ...extraNames), hostileValue).map(([key, value]): Mutation => (report) =>
    withKey(report, key, value)
  ),
  fc.tuple(
    fc.constantFrom(...extraNames),
    fc.constantFrom<unknown>("MissedCheck", "ProbeHeartbeat", "CheckResult", "x")
  )
    .map(([key, value]): Mutation => (report) => withKey(report, key, value)),
  // `{"__proto__": {...}}` from JSON.parse is an own key, not a prototype: it must change nothing.
  fc.constantFrom<unknown>({ jobId: "m:1", ok: true }, { _tag: "MissedCheck" }, null).map(
    (value): Mutation => (report) => withKey(report, "__proto__", value)
  ),
  fc.tuple(fc.constantFrom(...timingNames, "extra", "__proto__"), fc.oneof(hostileValue, fc.constant(undefined))).map((
    [key, value]
  ): Mutation =>
  (report) => {
    const timings = report.timings
    if (typeof timings !== "object" || timings === null) return report
    return withKey(report, "timings", value === undefined ? without(timings, key) : withKey(timings, key, value))
  })
)

const mutated = (report: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(report, fc.array(mutation, { maxLength: 3 })).map(([fields, changes]) =>
    changes.reduce((changed, change) => change(changed), fields)
  )

/** A report as a plain object (raw JSON numbers and all): valid and mutated results, misses, heartbeats. */
const report: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 4, arbitrary: validResult },
  { weight: 4, arbitrary: mutated(validResult) },
  { weight: 2, arbitrary: result },
  { weight: 2, arbitrary: mutated(result) },
  { weight: 1, arbitrary: mutated(missed) },
  // A miss's fields and a result's, under a miss's tag: the union tries the miss, then the result.
  { weight: 1, arbitrary: fc.tuple(result, missed).map(([fields, miss]) => ({ ...fields, ...miss })) },
  { weight: 1, arbitrary: mutated(heartbeat) }
)

/** The text of a stream entry: a report's JSON, cut short or not, or any JSON or text. */
const entryText: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: report.map(toJsonText) },
  { weight: 1, arbitrary: fc.tuple(report, fc.nat()).map(([value, at]) => toJsonText(value).slice(0, at % 400)) },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.string() }
)

const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const runs = { numRuns: 20_000 }

describe("decoding a results stream's entry", () => {
  it("accepts exactly what the schema accepts, as the same value", () => {
    let accepted = 0
    fc.assert(
      fc.property(entryText, (text) => {
        const decoded = decodeResultEntry(text)
        const expected = Option.getOrUndefined(schemaDecodeText(text))
        expect(shape(decoded), text).toEqual(shape(expected))
        if (decoded !== undefined) accepted++
      }),
      runs
    )
    // Not vacuous: a good share of the reports decode (results, misses, heartbeats).
    expect(accepted).toBeGreaterThan(runs.numRuns / 5)
  })

  it("decodes every report without a `_tag` by hand, exactly as the schema does; leaves every other to it", () => {
    let byHand = 0
    const parsed = fc.oneof(
      { weight: 8, arbitrary: entryText.map(parsedOrText) },
      // Not JSON's: null prototypes, boxed values, symbols, sparse arrays.
      { weight: 1, arbitrary: fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }) }
    )
    fc.assert(
      fc.property(parsed, (value) => {
        const fast = decodeCheckResultFast(value)
        const schema = Option.getOrUndefined(schemaDecodeValue(value))
        const tagged = typeof value === "object" && value !== null && Object.hasOwn(value, "_tag")
        if (fast !== undefined) {
          byHand++
          expect(shape(fast)).toEqual(shape(schema))
        } else if (schema !== undefined && !tagged) {
          // Only a tagged report goes to the schema to be accepted there.
          expect.fail(`the schema alone accepted ${JSON.stringify(shape(value))}`)
        }
      }),
      runs
    )
    expect(byHand).toBeGreaterThan(runs.numRuns / 5)
  })

  it("takes what probes send by hand: a CheckResult, with or without a traceparent", () => {
    const sent = CheckResult.make({
      jobId: "m1:1790000000000",
      monitorId: "m1",
      region: "eu-west",
      probe: "probe-1",
      scheduledAt: 1_790_000_000_000,
      checkedAt: 1_790_000_000_120,
      ok: false,
      durationMs: 12.5,
      timings: { dnsMs: null, connectMs: 0.4, tlsMs: null, firstByteMs: 11.9 },
      statusCode: 503,
      error: "expected status 200, got 503",
      sslDaysLeft: null
    })
    const traced = CheckResult.make({ ...sent, traceparent: `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01` })
    for (const report of [sent, traced]) {
      const decoded = decodeCheckResultFast(JSON.parse(JSON.stringify(report)))
      expect(shape(decoded)).toEqual(shape(report))
      expect(shape(decodeResultEntry(JSON.stringify(report)))).toEqual(shape(report))
    }
    // A traceparent that is not one is kept as undefined, as the schema keeps it.
    const decoded = decodeCheckResultFast({ ...JSON.parse(JSON.stringify(sent)), traceparent: "nope" })
    expect(decoded).toHaveProperty("traceparent", undefined)
  })

  it("refuses what a compromised probe might send", () => {
    const valid =
      `{"jobId":"m1:5","monitorId":"m1","region":"eu","probe":"p","scheduledAt":5,"checkedAt":6,"ok":true,"durationMs":1,"timings":{"dnsMs":null,"connectMs":null,"tlsMs":null,"firstByteMs":null},"statusCode":200,"error":null,"sslDaysLeft":null}`
    expect(shape(decodeResultEntry(valid))).toEqual(shape(JSON.parse(valid)))
    for (
      const [from, to] of [
        ["\"durationMs\":1", "\"durationMs\":-1"],
        ["\"durationMs\":1", "\"durationMs\":1e400"],
        ["\"durationMs\":1", "\"durationMs\":120000.5"],
        ["\"connectMs\":null", "\"connectMs\":\"1\""],
        ["\"scheduledAt\":5", "\"scheduledAt\":5.5"],
        ["\"checkedAt\":6", `"checkedAt":${5 + reportWindowMs + 1}`],
        ["\"statusCode\":200", "\"statusCode\":600"],
        ["\"sslDaysLeft\":null", `"sslDaysLeft":${maxSslDays + 1}`],
        ["\"monitorId\":\"m1\"", "\"monitorId\":\"\""],
        ["\"region\":\"eu\"", `"region":"${"r".repeat(64)}"`],
        ["\"error\":null", `"error":"${"e".repeat(errorMaxLength + 1)}"`],
        ["\"error\":null", "\"error\":\"a\\u0000b\""],
        ["\"probe\":\"p\"", "\"probe\":\"\\ud800\""],
        ["\"ok\":true", "\"ok\":1"],
        [",\"sslDaysLeft\":null", ""],
        ["\"timings\":{", "\"timings\":[],\"x\":{"]
      ]
    ) {
      const text = valid.replace(from!, to!)
      expect(text).not.toBe(valid)
      expect(decodeResultEntry(text), text).toBeUndefined()
    }
  })
})
