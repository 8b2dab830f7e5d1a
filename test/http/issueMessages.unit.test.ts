/**
 * The words of the API's 400s (src/api/IssueMessages.ts) for the schemas the API really uses:
 * request bodies are decoded as the server decodes them (the endpoint's payload schemas, the
 * API's strict parse options), so a change of a schema or of Effect's issues shows here.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema, type SchemaIssue } from "effect"

import { Api } from "../../src/api/Api.js"
import { strictParseOptions } from "../../src/api/ApiErrors.js"
import {
  closestKey,
  describeIssue,
  expectedWords,
  type FieldIssue,
  fieldIssues,
  maxIssues,
  pathWords,
  summary
} from "../../src/api/IssueMessages.js"
import { SetComponentStatus } from "../../src/domain/Component.js"
import { NumberFromString } from "../../src/domain/Fields.js"
import { Headers, QuorumRule, Regions } from "../../src/domain/Monitor.js"
import { RecurrenceInput } from "../../src/domain/Recurrence.js"
import { ResponseTimesQuery } from "../../src/domain/ResponseTimes.js"
import { UtcTimestamp } from "../../src/domain/Timestamps.js"
import { UptimeQuery } from "../../src/domain/Uptime.js"

/** The issue the server meets for `input` as the body of `group.endpoint`. */
const bodyIssue = (group: string, endpoint: string, input: unknown): SchemaIssue.Issue => {
  const found = (Api.groups as unknown as Record<string, { endpoints: Record<string, any> }>)[group]
    ?.endpoints[endpoint]
  const schemas = found?.payload.get("application/json")?.schemas
  if (schemas === undefined) throw new Error(`${group}.${endpoint} takes no JSON body`)
  return failure(Schema.Union(schemas), input)
}

/** The issue the server meets for `input` as a query of `schema` (parameters may repeat). */
const queryIssue = (schema: Schema.Top, input: Record<string, string | Array<string>>) =>
  failure(Schema.toCodecArrayFromSingle(schema as Schema.Codec<unknown, unknown>), input)

const failure = (schema: Schema.Top, input: unknown): SchemaIssue.Issue => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(input, strictParseOptions)
  if (Result.isSuccess(result)) throw new Error(`${JSON.stringify(input)} was accepted`)
  return result.failure.issue
}

const body = (group: string, endpoint: string, input: unknown) => describeIssue(bodyIssue(group, endpoint, input))

/** `{ path: message }` of each issue, for compact expectations. */
const byPath = (issues: ReadonlyArray<FieldIssue>) =>
  Object.fromEntries(issues.map((issue) => [pathWords(issue.path), issue.message]))

const statuses = "operational, degraded, partial_outage, major_outage, maintenance"

describe("schema refusals in words", () => {
  it("an enum gives one issue naming every allowed value, not one per value", () => {
    const { issues, message } = body("components", "setStatus", { status: "on_fire" })
    expect(issues).toEqual([{ tag: "Type", path: ["status"], message: `must be one of ${statuses}` }])
    expect(message).toBe(`The request body is invalid: status must be one of ${statuses}.`)
    // The same schema alone, and as a record's values.
    expect(fieldIssues(failure(SetComponentStatus, { status: 3 }))).toHaveLength(1)
    expect(byPath(body("incidents", "create", { title: "t", componentStatuses: { a: "x" } }).issues)).toEqual({
      "componentStatuses.a": `must be one of ${statuses}`
    })
  })

  it("a missing field is required, a wrong type says the type expected, every field at once", () => {
    const signIn = body("auth", "signIn", { email: 42 })
    expect(byPath(signIn.issues)).toEqual({
      email: "must be a string of at most 320 characters",
      password: "is required"
    })
    expect(signIn.issues.map((issue) => issue.tag)).toEqual(["Type", "Missing"])
    expect(signIn.message).toBe(
      "2 fields are invalid: email must be a string of at most 320 characters; password is required."
    )
    // The example of docs/api.md, "Errors".
    expect(body("webhooks", "create", { url: "nope", type: "generic" })).toEqual({
      message: "2 fields are invalid: name is required; url must be an absolute http(s) URL.",
      issues: [
        { tag: "Missing", path: ["name"], message: "is required" },
        { tag: "Refinement", path: ["url"], message: "must be an absolute http(s) URL" }
      ]
    })
    expect(
      byPath(body("monitors", "create", { componentId: "c", type: "http", url: "https://x", timeoutMs: "5" }).issues)
    )
      .toEqual({ timeoutMs: "must be an integer from 100 to 60000" })
    expect(byPath(body("organization", "update", { timezone: 5 }).issues)).toEqual({ timezone: "must be a string" })
  })

  it("bounds and formats are said in words, with the schema's own message when it has one", () => {
    expect(byPath(body("components", "create", { name: "x".repeat(201), displayOrder: 1.5 }).issues)).toEqual({
      name: "must be at most 200 characters",
      displayOrder: "must be an integer from -2147483648 to 2147483647"
    })
    expect(byPath(body("components", "create", { name: "  " }).issues)).toEqual({ name: "must not be empty" })
    expect(byPath(body("components", "create", { name: "a\u0000b" }).issues)).toEqual({
      name: "must not contain NUL characters"
    })
    expect(byPath(
      body("monitors", "create", { componentId: "c", type: "http", url: "https://x", intervalSeconds: 5 })
        .issues
    )).toEqual({ intervalSeconds: "must be an integer from 10 to 86400" })
    expect(byPath(body("webhooks", "create", { name: "n", type: "generic", url: "ftp://x" }).issues)).toEqual({
      url: "must be an http(s) URL"
    })
    expect(byPath(
      body("maintenance", "create", {
        title: "t",
        scheduledStart: 5,
        scheduledEnd: "2030-02-30T00:00:00Z"
      }).issues
    )).toEqual({
      scheduledStart: "must be an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z",
      scheduledEnd: "must be a real date and time"
    })
  })

  it("a union is summarised once, a nullable field says so", () => {
    const quorum = "must be one of majority, any, all, or an integer from 1 to 1000"
    const monitor = { componentId: "c", type: "http", url: "https://x" }
    expect(byPath(body("monitors", "create", { ...monitor, quorum: "most" }).issues)).toEqual({ quorum })
    expect(byPath(body("monitors", "create", { ...monitor, quorum: 0 }).issues)).toEqual({ quorum })
    expect(byPath(body("monitors", "create", { ...monitor, regions: [] }).issues)).toEqual({
      regions: "must be a non-empty array of at most 20 items or null"
    })
    expect(byPath(body("monitors", "create", { ...monitor, degradedAboveMs: "slow" }).issues)).toEqual({
      degradedAboveMs: "must be an integer from 1 to 60000 or null"
    })
    expect(byPath(body("monitors", "create", { ...monitor, headers: { "X-Key": 5 } }).issues)).toEqual({
      "headers[\"X-Key\"]": "must be a string of at most 1024 characters"
    })
    // A body that may be null or an object: the object's own fields are reported.
    expect(body("incidents", "resolve", 5).message).toBe("The request body must be an object or null.")
    expect(expectedWords(QuorumRule.ast)).toBe("one of majority, any, all, or an integer from 1 to 1000")
    expect(expectedWords(Regions.ast)).toBe("a non-empty array of at most 20 items or null")
    expect(expectedWords(Headers.ast)).toBe("an object")
    expect(expectedWords(UtcTimestamp.ast)).toBe("an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z")
  })

  it("an unknown field is refused by name, at any depth, with the closest known field", () => {
    const { issues, message } = body("components", "create", { name: "x", ispublic: true })
    expect(issues).toEqual([
      { tag: "Unexpected", path: ["ispublic"], message: "is not a known field (did you mean isPublic?)" }
    ])
    expect(message).toBe("The request body is invalid: ispublic is not a known field (did you mean isPublic?).")
    expect(byPath(body("incidents", "resolve", { mesage: "fixed" }).issues)).toEqual({
      mesage: "is not a known field (did you mean message?)"
    })
    expect(byPath(body("components", "create", { name: "x", colour: "red" }).issues)).toEqual({
      colour: "is not a known field"
    })
    const window = { title: "t", scheduledStart: "2030-01-01T00:00:00Z", scheduledEnd: "2030-01-02T00:00:00Z" }
    expect(
      byPath(body("maintenance", "create", { ...window, recurrence: { frequency: "weekly", intervall: 2 } }).issues)
    )
      .toEqual({
        "recurrence.intervall": "is not a known field (did you mean interval?)",
        "recurrence.interval": "is required"
      })
    expect(byPath(fieldIssues(failure(RecurrenceInput, { frequency: "daily", interval: 0, count: 1001 })))).toEqual({
      interval: "must be an integer from 1 to 52",
      count: "must be an integer from 1 to 1000"
    })
  })

  it("the whole body of the wrong type is said of the body", () => {
    for (const input of [[], "text", null, undefined]) {
      expect(body("components", "create", input)).toEqual({
        message: "The request body must be an object.",
        issues: [{ tag: "Type", path: [], message: "must be an object" }]
      })
    }
  })

  it("query parameters: what a number written as text must be, an unknown parameter, a repeated one", () => {
    const Paging = Schema.Struct({
      limit: Schema.optionalKey(NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 })))
    })
    for (const limit of ["abc", "0", "1.5", ""]) {
      expect(describeIssue(queryIssue(Paging, { limit }), "query")).toEqual({
        message: "The query is invalid: limit must be an integer from 1 to 100.",
        issues: [{ tag: expect.any(String), path: ["limit"], message: "must be an integer from 1 to 100" }]
      })
    }
    expect(describeIssue(queryIssue(Paging, { limit: "5", page: "2" }), "query")).toEqual({
      message: "The query is invalid: page is not a known query parameter.",
      issues: [{ tag: "Unexpected", path: ["page"], message: "is not a known query parameter" }]
    })
    expect(byPath(fieldIssues(queryIssue(Paging, { lmit: "5" }), "query"))).toEqual({
      lmit: "is not a known query parameter (did you mean limit?)"
    })
    expect(byPath(fieldIssues(queryIssue(UptimeQuery, { period: "1y" }), "query"))).toEqual({
      period: "must be one of 24h, 7d, 30d, 90d"
    })
    expect(summary(fieldIssues(queryIssue(ResponseTimesQuery, { period: ["24h", "7d"], x: "1" }), "query"), "query"))
      .toMatch(/^2 query parameters are invalid: /)
  })

  it("no message is a schema tree or Effect's own words, and none quotes the value refused", () => {
    const huge = "x".repeat(100_000)
    const refusals = [
      body("components", "setStatus", { status: huge }),
      body("auth", "signIn", { email: huge, password: 1, extra: huge }),
      body("monitors", "create", { componentId: huge, type: huge, url: huge, quorum: huge, headers: { a: huge } }),
      body("maintenance", "create", { title: huge, scheduledStart: huge, scheduledEnd: huge, recurrence: huge }),
      body("webhooks", "create", { name: huge, url: huge, type: huge, [huge]: 1 })
    ]
    for (const refusal of refusals) {
      const text = JSON.stringify(refusal)
      expect(text).not.toMatch(/Encoded side|└|Expected|<->|Missing key/)
      expect(text.length).toBeLessThan(3_000)
    }
  })

  it("an unknown key from the input is shortened wherever it is repeated, and the issues are capped", () => {
    const key = "k".repeat(5_000)
    const [issue] = body("components", "create", { name: "x", [key]: 1 }).issues
    expect(String(issue?.path[0]).length).toBeLessThanOrEqual(101)
    const many = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`extra${i}`, i]))
    const refusal = body("components", "create", { name: "x", ...many })
    expect(refusal.issues).toHaveLength(maxIssues)
    expect(refusal.message).toMatch(/^250 fields are invalid: extra0 is not a known field; .*; and 245 more\.$/)
  })

  it("sentences and paths", () => {
    expect(pathWords(["recurrence", "interval"])).toBe("recurrence.interval")
    expect(pathWords(["componentIds", 2])).toBe("componentIds[2]")
    expect(pathWords(["headers", "X-Key"])).toBe("headers[\"X-Key\"]")
    expect(summary([{ path: ["id"], message: "must not contain NUL characters" }], "path"))
      .toBe("The path is invalid: id must not contain NUL characters.")
    expect(summary([{ path: ["a"], message: "is not a known field (did you mean b?)" }]))
      .toBe("The request body is invalid: a is not a known field (did you mean b?).")
    // A schema message not worded to follow a field's name is made so.
    expect(
      byPath(
        body("monitors", "create", {
          componentId: "c",
          type: "http",
          url: "https://x",
          expectedStatusCodes: ["abc"]
        }).issues
      )["expectedStatusCodes[0]"]
    ).toMatch(/^is invalid: a status code is/)
  })

  it("suggests a known field only when it is close", () => {
    const known = ["name", "description", "isPublic", "displayOrder", "groupId"]
    expect(closestKey("ispublic", known)).toBe("isPublic")
    expect(closestKey("nmae", known)).toBe("name")
    expect(closestKey("descripton", known)).toBe("description")
    expect(closestKey("group_id", known)).toBe("groupId")
    expect(closestKey("colour", known)).toBeUndefined()
    expect(closestKey("id", known)).toBeUndefined()
  })
})
