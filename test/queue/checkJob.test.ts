/** The job and result schemas: stable ids, staleness, and a JSON round trip. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CheckJob, CheckResult } from "../../src/queue/CheckJob.js"

const check = { monitorId: "m1", type: "http", url: "http://127.0.0.1/", timeoutMs: 1000, expectedStatusCode: 200, intervalSeconds: 60 } as const

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
        jobId: "m1:5", monitorId: "m1", region: "eu-west", probe: "p1", scheduledAt: 5, checkedAt: 6, ok: false,
        durationMs: 1.5, timings: { dnsMs: null, connectMs: 0.2, tlsMs: null, firstByteMs: 1 }, statusCode: 503,
        error: "expected status 200, got 503", sslDaysLeft: null
      })
      const json = yield* Schema.encode(Schema.parseJson(CheckResult))(result)
      expect(yield* Schema.decodeUnknown(Schema.parseJson(CheckResult))(json)).toEqual(result)
    }))
})
