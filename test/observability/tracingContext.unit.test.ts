/** The trace context a job and a result carry: encoded as the scheduler writes it, decoded leniently. */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"

import { CheckJob, CheckResult, JobTemplate } from "../../src/domain/CheckJob.js"
import { linksTo, parseHeaders, spanOfTraceparent } from "../../src/runtime/Telemetry.js"

const traceparent = `00-${"4bf92f3577b34da6a3ce929d0e0e4736"}-${"00f067aa0ba902b7"}-01`
const template = JobTemplate.make({
  monitorId: "m-1",
  type: "http",
  url: "https://example.com/",
  timeoutMs: 1000,
  expectedStatusCode: 200,
  intervalSeconds: 60
}).pipe((result) => (result._tag === "Success" ? result.success : undefined))!
const decodeJob = Schema.decodeUnknownSync(Schema.fromJsonString(CheckJob))

describe("traceparent in jobs and results", () => {
  it("the scheduler's JSON of a traced run is JSON.stringify of its job, and decodes to it", () => {
    const json = template.encode(120_000, traceparent)
    // Validated, a job's fields are in its schema's order: what a probe's JSON.stringify would write.
    const job = new CheckJob({ ...template.check, id: "m-1:120000", scheduledAt: 120_000, traceparent })
    expect(json).toBe(JSON.stringify(job))
    expect(template.job(120_000, traceparent)).toEqual(job)
    expect(decodeJob(json).traceparent).toBe(traceparent)
    expect(template.encode(120_000)).not.toContain("traceparent")
    expect(decodeJob(template.encode(120_000)).traceparent).toBeUndefined()
  })

  it("a malformed traceparent decodes as absent: the job and the result still decode", () => {
    const job = JSON.parse(template.encode(120_000)) as Record<string, unknown>
    const malformed: ReadonlyArray<unknown> = [
      "",
      "garbage",
      traceparent.toUpperCase(),
      `01-${traceparent.slice(3)}`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`,
      `${traceparent}-extra`,
      "x".repeat(100_000),
      42,
      null,
      ["00"],
      { traceId: "4bf92f3577b34da6a3ce929d0e0e4736" }
    ]
    for (const value of malformed) {
      expect(decodeJob(JSON.stringify({ ...job, traceparent: value })).traceparent).toBeUndefined()
    }
    const result = {
      jobId: "m-1:120000",
      monitorId: "m-1",
      region: "eu",
      probe: "p",
      scheduledAt: 120_000,
      checkedAt: 120_010,
      ok: true,
      durationMs: 5,
      timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null },
      statusCode: 200,
      error: null,
      sslDaysLeft: null
    }
    const decodeResult = Schema.decodeUnknownSync(CheckResult)
    expect(decodeResult({ ...result, traceparent }).traceparent).toBe(traceparent)
    for (const value of malformed) expect(decodeResult({ ...result, traceparent: value }).traceparent).toBeUndefined()
  })

  it("parents and links come only from valid values", () => {
    expect(spanOfTraceparent(traceparent)).toMatchObject({
      _tag: "ExternalSpan",
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled: true
    })
    expect(spanOfTraceparent(`${traceparent.slice(0, -2)}00`)?.sampled).toBe(false)
    expect(spanOfTraceparent(`${traceparent.slice(0, -2)}03`)?.sampled).toBe(true)
    expect(spanOfTraceparent(`${traceparent.slice(0, -2)}02`)?.sampled).toBe(false)
    expect(spanOfTraceparent("garbage")).toBeUndefined()
    expect(linksTo([traceparent, undefined, "garbage"]).map((link) => link.span.spanId)).toEqual(["00f067aa0ba902b7"])
  })

  it("OTEL_EXPORTER_OTLP_HEADERS is a comma list of key=value, values percent-decoded", () => {
    expect(parseHeaders("api-key=abc%3D%3D, X-Tenant = t1,broken,=nothing")).toEqual({
      "api-key": "abc==",
      "x-tenant": "t1"
    })
  })
})
