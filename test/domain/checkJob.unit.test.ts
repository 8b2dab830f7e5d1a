/** The job, result and miss schemas: stable ids, staleness, and the JSON on the wire. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"

import { CheckJob, CheckResult, isMissed, JobTemplate, MissedCheck, ProbeReport } from "../../src/domain/CheckJob.js"

const check = {
  monitorId: "m1",
  type: "http",
  url: "http://127.0.0.1/",
  timeoutMs: 1000,
  expectedStatusCode: 200,
  intervalSeconds: 60
} as const

describe("check jobs", () => {
  it.effect("carry the stable id monitorId:scheduledAt and refuse any other", () =>
    Effect.gen(function*() {
      const job = CheckJob.forRun(check, 1_700_000_000_000)
      expect(job.id).toBe("m1:1700000000000")
      const json = yield* Schema.encode(Schema.parseJson(CheckJob))(job)
      expect(yield* Schema.decodeUnknown(Schema.parseJson(CheckJob))(json)).toEqual(job)
      const forged = yield* Effect.flip(Schema.decodeUnknown(CheckJob)({ ...job, id: "m1:1" }))
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
      const json = yield* Schema.encode(Schema.parseJson(CheckJob))(limited)
      expect((yield* Schema.decodeUnknown(Schema.parseJson(CheckJob))(json)).regions).toEqual(["eu-west", "us-east"])
    }))

  it.effect("results round-trip through JSON", () =>
    Effect.gen(function*() {
      const result = new CheckResult({
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
      const json = yield* Schema.encode(Schema.parseJson(CheckResult))(result)
      expect(yield* Schema.decodeUnknown(Schema.parseJson(CheckResult))(json)).toEqual(result)
    }))

  it.effect("results and misses share the results stream: JSON.stringify is their encoding, `_tag` tells them apart", () =>
    Effect.gen(function*() {
      const result = new CheckResult({
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
      const wire = Schema.parseJson(ProbeReport)
      for (const report of [result, miss]) {
        // The transport's `plain` codec writes JSON.stringify: it must be what the schema encodes.
        expect(JSON.parse(JSON.stringify(report))).toEqual(JSON.parse(yield* Schema.encode(wire)(report)))
        expect(yield* Schema.decodeUnknown(wire)(JSON.stringify(report))).toEqual(report)
      }
      // A result's JSON is what it was before misses existed: no tag.
      expect(JSON.parse(JSON.stringify(result))).not.toHaveProperty("_tag")
      expect(isMissed(yield* Schema.decodeUnknown(wire)(JSON.stringify(miss)))).toBe(true)
      expect(isMissed(yield* Schema.decodeUnknown(wire)(JSON.stringify(result)))).toBe(false)
      expect(Either.isLeft(Schema.decodeUnknownEither(wire)(JSON.stringify({ ...miss, reason: "bored" })))).toBe(true)
    }))

  it.effect("a job template writes the job's JSON: the same text as JSON.stringify, decoded to the same job", () =>
    Effect.gen(function*() {
      const definitions = [
        check,
        { ...check, regions: null },
        { ...check, regions: ["eu-west", "us-east"] },
        { ...check, regions: [] },
        { ...check, type: "tcp", url: "db.internal:5432", expectedStatusCode: 200 },
        { ...check, monitorId: "q\"uo\\te:é\u2028", url: "http://example.test/?a=\"b\"&c=\\d\n" }
      ] as const
      for (const definition of definitions) {
        const template = yield* JobTemplate.make(definition)
        for (const scheduledAt of [0, 1_700_000_000_000, Number.MAX_SAFE_INTEGER]) {
          const job = CheckJob.forRun(definition, scheduledAt)
          expect(template.job(scheduledAt)).toEqual(job)
          expect(template.encode(scheduledAt)).toBe(JSON.stringify(job))
          expect(yield* Schema.decodeUnknown(Schema.parseJson(CheckJob))(template.encode(scheduledAt))).toEqual(job)
        }
      }
    }))

  it("a job template refuses an invalid check, and a scheduledAt that is not epoch milliseconds", () => {
    expect(Either.isLeft(JobTemplate.make({ ...check, expectedStatusCode: 42 }))).toBe(true)
    expect(Either.isLeft(JobTemplate.make({ ...check, url: "" }))).toBe(true)
    expect(Either.isLeft(JobTemplate.make({ ...check, intervalSeconds: 0 }))).toBe(true)
    const template = Either.getOrThrow(JobTemplate.make(check))
    expect(() => template.encode(1.5)).toThrow(RangeError)
    expect(() => template.encode(-1)).toThrow(RangeError)
    expect(() => template.encode(Number.NaN)).toThrow(RangeError)
  })
})
