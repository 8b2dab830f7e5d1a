import { describe, expect, it } from "vitest"

import { CheckResult, jobIdOf } from "../../src/domain/CheckJob.js"
import { fromDurations, merge, percentile, relativeError } from "../../src/domain/ResponseTimeHistogram.js"
import { regionsOf, rollUp, windowOf } from "../../src/domain/ResponseTimes.js"

const hour = 3_600_000
const day = 24 * hour
const midnight = Date.UTC(2030, 0, 15)

const result = (
  region: string,
  scheduledAt: number,
  durationMs: number,
  options: { ok?: boolean; monitorId?: string; tlsMs?: number | null } = {}
) =>
  CheckResult.make({
    jobId: jobIdOf(options.monitorId ?? "m1", scheduledAt),
    monitorId: options.monitorId ?? "m1",
    region,
    probe: `${region}-1`,
    scheduledAt,
    checkedAt: scheduledAt + 5,
    ok: options.ok ?? true,
    durationMs,
    timings: { dnsMs: 2, connectMs: 4, tlsMs: options.tlsMs === undefined ? 8 : options.tlsMs, firstByteMs: 20 },
    statusCode: 200,
    error: null,
    sslDaysLeft: null
  })

describe("rollUp", () => {
  it("groups successful checks per monitor, region and hour, and per UTC day", () => {
    const rows = rollUp([
      result("eu", midnight - 1, 100), // the last millisecond of the day before
      result("eu", midnight, 200),
      result("eu", midnight + hour - 1, 300, { tlsMs: null }),
      result("eu", midnight + hour, 400),
      result("us", midnight + 10, 50),
      result("eu", midnight + 20, 9_999, { ok: false }), // a failure is not a response time
      result("eu", midnight + 30, 70, { monitorId: "m2" })
    ])
    const find = (monitorId: string, region: string, granularity: string, bucketStart: number) =>
      rows.find((row) =>
        row.monitorId === monitorId && row.region === region && row.granularity === granularity &&
        row.bucketStart === bucketStart
      )
    // m1 eu: 3 hours, 2 days; m1 us: 1 and 1; m2 eu: 1 and 1.
    expect(rows).toHaveLength(9)
    expect(find("m1", "eu", "hour", midnight - hour)?.histogram.count).toBe(1)
    expect(find("m1", "eu", "day", midnight - day)?.histogram.count).toBe(1)
    const firstHour = find("m1", "eu", "hour", midnight)!
    expect(firstHour.histogram).toEqual(fromDurations([200, 300]))
    expect(firstHour.phases).toEqual({
      dns: { sumMs: 4, count: 2 },
      connect: { sumMs: 8, count: 2 },
      tls: { sumMs: 8, count: 1 },
      firstByte: { sumMs: 40, count: 2 }
    })
    expect(find("m1", "eu", "hour", midnight + hour)?.histogram.count).toBe(1)
    expect(find("m1", "eu", "day", midnight)?.histogram).toEqual(fromDurations([200, 300, 400]))
    expect(find("m1", "us", "day", midnight)?.histogram.count).toBe(1)
    expect(find("m2", "eu", "hour", midnight)?.histogram.count).toBe(1)
    expect(rollUp([result("eu", midnight, 10, { ok: false })])).toEqual([])
  })
})

describe("regionsOf", () => {
  it("merges rows of one region and bucket, sorts regions by name and points by time", () => {
    const totals = (durations: Array<number>) => ({
      histogram: fromDurations(durations),
      phases: {
        dns: { sumMs: 0, count: 0 },
        connect: { sumMs: 10 * durations.length, count: durations.length },
        tls: { sumMs: 0, count: 0 },
        firstByte: { sumMs: 0, count: 0 }
      }
    })
    const regions = regionsOf([
      { region: "us-east", bucketStart: midnight + hour, ...totals([300]) },
      { region: "eu-west", bucketStart: midnight + hour, ...totals([100, 120]) },
      { region: "eu-west", bucketStart: midnight, ...totals([90]) },
      // Another monitor of the same component, same region and hour.
      { region: "eu-west", bucketStart: midnight + hour, ...totals([1000]) }
    ])
    expect(regions.map((region) => region.region)).toEqual(["eu-west", "us-east"])
    const [eu] = regions
    expect(eu!.points.map((point) => point.at.epochMilliseconds)).toEqual([midnight, midnight + hour])
    const merged = merge(fromDurations([100, 120]), fromDurations([1000]))
    expect(eu!.points[1]).toMatchObject({
      count: 3,
      p50Ms: Math.round(percentile(merged, 0.5)! * 10) / 10,
      meanMs: 406.7,
      dnsMs: null,
      connectMs: 10
    })
    // The slowest check is the 95th and 99th percentile: estimated within the histogram's error.
    expect(Math.abs(eu!.points[1]!.p95Ms - 1000) / 1000).toBeLessThanOrEqual(relativeError)
    expect(eu!.points[1]!.p99Ms).toBe(eu!.points[1]!.p95Ms)
  })
})

describe("windowOf", () => {
  it("covers 24 or 168 hours, or 30 UTC days, the current one included", () => {
    const now = midnight + 5 * hour + 17 * 60_000
    expect(windowOf("24h", now)).toEqual({ granularity: "hour", from: midnight + 5 * hour - 23 * hour })
    expect(windowOf("7d", now)).toEqual({ granularity: "hour", from: midnight + 5 * hour - 167 * hour })
    expect(windowOf("30d", now)).toEqual({ granularity: "day", from: midnight - 29 * day })
  })
})
