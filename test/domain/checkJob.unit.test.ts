/** The job, result and miss schemas: stable ids, staleness, and the JSON on the wire. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"

import { runCheck } from "../../probes/checks/runCheck.js"
import {
  CheckJob,
  CheckOutcome,
  CheckResult,
  isMissed,
  JobTemplate,
  MissedCheck,
  ProbeReport,
  statusCodeMatches,
  StatusCodeSpec
} from "../../src/domain/CheckJob.js"
import { tcpServer } from "../support/Servers.js"

const check = {
  monitorId: "m1",
  type: "http",
  url: "http://127.0.0.1/",
  timeoutMs: 1000,
  expectedStatusCode: 200,
  intervalSeconds: 60
} as const

describe("status code lists", () => {
  it("match codes and inclusive ranges", () => {
    expect(statusCodeMatches(["200-299", "304"], 200)).toBe(true)
    expect(statusCodeMatches(["200-299", "304"], 299)).toBe(true)
    expect(statusCodeMatches(["200-299", "304"], 304)).toBe(true)
    expect(statusCodeMatches(["200-299", "304"], 300)).toBe(false)
    expect(statusCodeMatches(["200-299", "304"], 199)).toBe(false)
    expect(statusCodeMatches(["503"], 503)).toBe(true)
  })

  it("decode only codes and ranges within 100-599, low to high", () => {
    const decode = Schema.decodeUnknownResult(StatusCodeSpec)
    for (const valid of ["100", "204", "200-299", "599", "301-301"]) {
      expect(Result.isSuccess(decode(valid)), valid).toBe(true)
    }
    for (const invalid of ["99", "600", "2xx", "299-200", "200-", " 200", "200-600", 200]) {
      expect(Result.isFailure(decode(invalid)), String(invalid)).toBe(true)
    }
  })
})

describe("check jobs", () => {
  it.effect("carry the stable id monitorId:scheduledAt and refuse any other", () =>
    Effect.gen(function*() {
      const job = CheckJob.forRun(check, 1_700_000_000_000)
      expect(job.id).toBe("m1:1700000000000")
      const json = yield* Schema.encodeEffect(Schema.fromJsonString(CheckJob))(job)
      expect(yield* Schema.decodeUnknownEffect(Schema.fromJsonString(CheckJob))(json)).toEqual(job)
      const forged = yield* Effect.flip(Schema.decodeUnknownEffect(CheckJob)({ ...job, id: "m1:1" }))
      expect(forged.message).toContain("id must be monitorId:scheduledAt")
    }))

  it("are stale once more than one interval late", () => {
    const job = CheckJob.forRun(check, 1_000_000)
    expect(job.isStaleAt(1_000_000 + 60_000)).toBe(false)
    expect(job.isStaleAt(1_000_000 + 60_001)).toBe(true)
  })

  it.effect("name the regions that run them; none named means every region", () =>
    Effect.gen(function*() {
      expect(CheckJob.forRun(check, 0).isFor("anywhere")).toBe(true)
      const limited = CheckJob.forRun({ ...check, regions: ["eu-west", "us-east"] }, 0)
      expect(limited.isFor("eu-west")).toBe(true)
      expect(limited.isFor("ap-south")).toBe(false)
      const json = yield* Schema.encodeEffect(Schema.fromJsonString(CheckJob))(limited)
      expect((yield* Schema.decodeUnknownEffect(Schema.fromJsonString(CheckJob))(json)).regions).toEqual([
        "eu-west",
        "us-east"
      ])
    }))

  it.effect("results round-trip through JSON", () =>
    Effect.gen(function*() {
      const result = CheckResult.make({
        jobId: "m1:5",
        monitorId: "m1",
        region: "eu-west",
        probe: "p1",
        scheduledAt: 5,
        checkedAt: 6,
        ok: false,
        durationMs: 1.5,
        timings: { dnsMs: null, connectMs: 0.2, tlsMs: null, firstByteMs: 1 },
        statusCode: 503,
        error: "expected status 200, got 503",
        sslDaysLeft: null
      })
      const json = yield* Schema.encodeEffect(Schema.fromJsonString(CheckResult))(result)
      expect(yield* Schema.decodeUnknownEffect(Schema.fromJsonString(CheckResult))(json)).toEqual(result)
    }))

  it.effect("results and misses share the results stream: JSON.stringify is their encoding, `_tag` tells them apart", () =>
    Effect.gen(function*() {
      const result = CheckResult.make({
        jobId: "m1:5",
        monitorId: "m1",
        region: "eu-west",
        probe: "p1",
        scheduledAt: 5,
        checkedAt: 6,
        ok: true,
        durationMs: 1,
        timings: { dnsMs: null, connectMs: 0.2, tlsMs: null, firstByteMs: 1 },
        statusCode: 200,
        error: null,
        sslDaysLeft: null
      })
      const miss = MissedCheck.of(CheckJob.forRun(check, 5), "eu-west", "p2", 60_006)
      expect(miss).toEqual(
        new MissedCheck({
          jobId: "m1:5",
          monitorId: "m1",
          region: "eu-west",
          probe: "p2",
          scheduledAt: 5,
          recordedAt: 60_006,
          reason: "late"
        })
      )
      const wire = Schema.fromJsonString(ProbeReport)
      for (const report of [result, miss]) {
        // The transport's `plain` codec writes JSON.stringify: it must be what the schema encodes.
        expect(JSON.parse(JSON.stringify(report))).toEqual(JSON.parse(yield* Schema.encodeEffect(wire)(report)))
        expect(yield* Schema.decodeUnknownEffect(wire)(JSON.stringify(report))).toEqual(report)
      }
      // A result's JSON is what it was before misses existed: no tag.
      expect(JSON.parse(JSON.stringify(result))).not.toHaveProperty("_tag")
      expect(isMissed(yield* Schema.decodeUnknownEffect(wire)(JSON.stringify(miss)))).toBe(true)
      expect(isMissed(yield* Schema.decodeUnknownEffect(wire)(JSON.stringify(result)))).toBe(false)
      expect(Result.isFailure(Schema.decodeUnknownResult(wire)(JSON.stringify({ ...miss, reason: "bored" })))).toBe(
        true
      )
    }))

  it.effect("a job template writes the job's JSON: the same text as JSON.stringify, decoded to the same job", () =>
    Effect.gen(function*() {
      const definitions = [
        check,
        { ...check, regions: null },
        { ...check, regions: ["eu-west", "us-east"] },
        { ...check, regions: [] },
        { ...check, type: "tcp", url: "db.internal:5432", expectedStatusCode: 200 },
        { ...check, monitorId: "q\"uo\\te:é\u2028", url: "http://example.test/?a=\"b\"&c=\\d\n" },
        {
          ...check,
          regions: ["eu-west"],
          method: "POST",
          headers: { "X-Api-Key": "s3\"cr\\et é", accept: "application/json" },
          body: "{\"ping\":\n\"\u2028\"}",
          expectedStatusCodes: ["200-299", "304"],
          bodyContains: "\"ok\"",
          bodyNotContains: "error"
        },
        // Absent, null or undefined: the old behaviour, and the JSON leaves undefined out.
        {
          ...check,
          method: null,
          headers: null,
          body: undefined,
          expectedStatusCodes: null,
          bodyContains: undefined,
          dnsRecordType: null
        },
        { ...check, type: "dns", url: "example.com", dnsRecordType: "MX", dnsExpectedValues: ["mx1.example.com."] },
        { ...check, type: "dns", url: "example.com", regions: undefined, dnsExpectedValues: ["a", "B"] }
      ] as const
      for (const definition of definitions) {
        const template = yield* Effect.fromResult(JobTemplate.make(definition))
        for (const scheduledAt of [0, 1_700_000_000_000, Number.MAX_SAFE_INTEGER]) {
          const job = CheckJob.forRun(definition, scheduledAt)
          expect(template.job(scheduledAt)).toEqual(job)
          expect(template.encode(scheduledAt)).toBe(JSON.stringify(job))
          expect(yield* Schema.decodeUnknownEffect(Schema.fromJsonString(CheckJob))(template.encode(scheduledAt)))
            .toEqual(job)
        }
      }
    }))

  it("a job template refuses an invalid check, and a scheduledAt that is not epoch milliseconds", () => {
    expect(Result.isFailure(JobTemplate.make({ ...check, expectedStatusCode: 42 }))).toBe(true)
    expect(Result.isFailure(JobTemplate.make({ ...check, url: "" }))).toBe(true)
    expect(Result.isFailure(JobTemplate.make({ ...check, intervalSeconds: 0 }))).toBe(true)
    const tooManyHeaders = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, "v"]))
    const invalid: Array<Record<string, unknown>> = [
      { method: "PUT" },
      { headers: { "bad name": "v" } },
      { headers: { "x-a": "v\r\nx-injected: 1" } },
      { headers: { "x-a": "v".repeat(1025) } },
      { headers: tooManyHeaders },
      { body: "b".repeat(65_537) },
      { expectedStatusCodes: [] },
      { expectedStatusCodes: ["2xx"] },
      { expectedStatusCodes: ["600"] },
      { expectedStatusCodes: ["299-200"] },
      { expectedStatusCodes: Array.from({ length: 21 }, () => "200") },
      { bodyContains: "" },
      { bodyNotContains: "n".repeat(1025) },
      { type: "dns", dnsRecordType: "SRV" },
      { type: "dns", dnsExpectedValues: [] },
      { type: "smtp" }
    ]
    for (const fields of invalid) {
      expect(Result.isFailure(JobTemplate.make({ ...check, ...fields } as never)), JSON.stringify(fields)).toBe(true)
    }
    // At the limits: accepted.
    const twentyHeaders = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${i}`, "v".repeat(1024)]))
    expect(Result.isSuccess(JobTemplate.make({ ...check, headers: twentyHeaders, body: "b".repeat(65_536) }))).toBe(
      true
    )
    const template = Result.getOrThrow(JobTemplate.make(check))
    expect(() => template.encode(1.5)).toThrow(RangeError)
    expect(() => template.encode(-1)).toThrow(RangeError)
    expect(() => template.encode(Number.NaN)).toThrow(RangeError)
  })
})

describe("a probe's outcome", () => {
  it.effect("is within what ingest decodes: a status code outside 100-599 is left out, the check failed on it", () =>
    Effect.gen(function*() {
      const target = yield* tcpServer((socket) => {
        socket.once("data", () => socket.end("HTTP/1.1 999 Odd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
      })
      const job = CheckJob.forRun({ ...check, url: `http://127.0.0.1:${target.port}/` }, 60_000)
      const outcome = yield* runCheck(job)
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "expected status 200, got 999" })
      expect(Schema.decodeUnknownResult(CheckOutcome)(outcome)._tag).toBe("Success")
      const result = { jobId: job.id, monitorId: job.monitorId, region: "eu", probe: "eu-1", scheduledAt: 60_000 }
      expect(Schema.decodeUnknownResult(CheckResult)({ ...result, checkedAt: 60_005, ...outcome })._tag).toBe("Success")
    }))
})
