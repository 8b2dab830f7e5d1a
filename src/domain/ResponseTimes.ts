/**
 * Response times by region: what ingest rolls up per monitor, region and hour (and day), and
 * the answers read back from those rollups. Only successful checks count: a failure's duration
 * measures how fast it failed (a refused connection in 1 ms, a time-out at its limit), not how
 * fast the service answers, and the failures already show in the monitor's state and uptime.
 */
import { DateTime, Schema } from "effect"

import type { CheckResult } from "./CheckJob.js"
import { Class } from "./Named.js"
import type { ResponseTimeHistogram } from "./ResponseTimeHistogram.js"
import * as Histogram from "./ResponseTimeHistogram.js"

export const ResponseTimesPeriod = Schema.Literals(["24h", "7d", "30d"])
export type ResponseTimesPeriod = typeof ResponseTimesPeriod.Type

export const defaultResponseTimesPeriod: ResponseTimesPeriod = "24h"

/** Query of the response-time endpoints; without `period`, 24 hours. A struct, so OpenAPI lists it. */
export const ResponseTimesQuery = Schema.Struct({
  period: Schema.optionalKey(ResponseTimesPeriod)
})

export type Granularity = "hour" | "day"

const hour = 3_600_000
const day = 86_400_000

/**
 * How long rollups are kept (Housekeeping): hourly rows a day longer than the longest hourly
 * period (7 days), daily rows 90 days.
 */
export const keepHourlyMillis = 8 * day
export const keepDailyMillis = 90 * day

/** The buckets a period shows, the current unfinished one included: 24 or 168 hours, or 30 UTC days. */
export const windowOf = (period: ResponseTimesPeriod, now: number): { granularity: Granularity; from: number } =>
  period === "30d"
    ? { granularity: "day", from: Math.floor(now / day) * day - 29 * day }
    : { granularity: "hour", from: Math.floor(now / hour) * hour - (period === "24h" ? 23 : 167) * hour }

/** Sum and count of one timing phase, for its mean. */
export interface PhaseTotal {
  readonly sumMs: number
  readonly count: number
}

export const phases = ["dns", "connect", "tls", "firstByte"] as const
export type Phase = typeof phases[number]
export type PhaseTotals = Readonly<Record<Phase, PhaseTotal>>

export const noPhases: PhaseTotals = {
  dns: { sumMs: 0, count: 0 },
  connect: { sumMs: 0, count: 0 },
  tls: { sumMs: 0, count: 0 },
  firstByte: { sumMs: 0, count: 0 }
}

const addPhases = (a: PhaseTotals, b: PhaseTotals): PhaseTotals => ({
  dns: { sumMs: a.dns.sumMs + b.dns.sumMs, count: a.dns.count + b.dns.count },
  connect: { sumMs: a.connect.sumMs + b.connect.sumMs, count: a.connect.count + b.connect.count },
  tls: { sumMs: a.tls.sumMs + b.tls.sumMs, count: a.tls.count + b.tls.count },
  firstByte: { sumMs: a.firstByte.sumMs + b.firstByte.sumMs, count: a.firstByte.count + b.firstByte.count }
})

/** What one bucket of one region holds: the durations' histogram and each phase's total. */
export interface BucketTotals {
  readonly histogram: ResponseTimeHistogram
  readonly phases: PhaseTotals
}

/** One rollup row: a monitor's checks of one region in one hour or UTC day. */
export interface ResponseTimeRollup extends BucketTotals {
  readonly monitorId: string
  readonly region: string
  readonly granularity: Granularity
  /** Epoch ms of the bucket's start. */
  readonly bucketStart: number
}

type Measured = Pick<CheckResult, "monitorId" | "region" | "scheduledAt" | "ok" | "durationMs" | "timings">

/**
 * The rollup rows of some stored results, to be added to those stored: one per monitor, region
 * and hour, and one per monitor, region and day, by the time each run was scheduled. The fold
 * computes the same in the database (ResponseTimesRepo.fold); the tests hold the two equal.
 */
export const rollUp = (results: ReadonlyArray<Measured>): Array<ResponseTimeRollup> => {
  const groups = new Map<string, { key: Omit<ResponseTimeRollup, keyof BucketTotals>; results: Array<Measured> }>()
  for (const result of results) {
    if (!result.ok) continue
    for (const [granularity, size] of [["hour", hour], ["day", day]] as const) {
      const bucketStart = Math.floor(result.scheduledAt / size) * size
      const id = `${result.monitorId}|${result.region}|${granularity}|${bucketStart}`
      const group = groups.get(id) ??
        { key: { monitorId: result.monitorId, region: result.region, granularity, bucketStart }, results: [] }
      group.results.push(result)
      groups.set(id, group)
    }
  }
  return [...groups.values()].map(({ key, results }) => {
    const phase = (pick: (result: Measured) => number | null): PhaseTotal => {
      let sumMs = 0
      let count = 0
      for (const result of results) {
        const ms = pick(result)
        if (ms !== null) {
          sumMs += ms
          count++
        }
      }
      return { sumMs, count }
    }
    return {
      ...key,
      histogram: Histogram.fromDurations(results.map((result) => result.durationMs)),
      phases: {
        dns: phase((result) => result.timings.dnsMs),
        connect: phase((result) => result.timings.connectMs),
        tls: phase((result) => result.timings.tlsMs),
        firstByte: phase((result) => result.timings.firstByteMs)
      }
    }
  })
}

const Ms = Schema.Finite.annotate({ description: "milliseconds, to a tenth" })

export class ResponseTimePoint extends Class<ResponseTimePoint>("ResponseTimePoint")({
  /** Start of the hour or UTC day. */
  at: Schema.DateTimeUtcFromString,
  /** Successful checks measured in the bucket. */
  count: Schema.Finite,
  p50Ms: Ms,
  p95Ms: Ms,
  p99Ms: Ms,
  meanMs: Ms,
  /** Mean time of each phase over the checks that went through it; null when none did. */
  dnsMs: Schema.NullOr(Ms),
  connectMs: Schema.NullOr(Ms),
  tlsMs: Schema.NullOr(Ms),
  firstByteMs: Schema.NullOr(Ms)
}) {}

export class RegionResponseTimes extends Class<RegionResponseTimes>("RegionResponseTimes")({
  region: Schema.String,
  /** Oldest first; only buckets with checks. */
  points: Schema.Array(ResponseTimePoint)
}) {}

export class ComponentResponseTimes extends Class<ComponentResponseTimes>("ComponentResponseTimes")({
  componentId: Schema.String,
  period: ResponseTimesPeriod,
  /** Sorted by region name. */
  regions: Schema.Array(RegionResponseTimes)
}) {}

export class MonitorResponseTimes extends Class<MonitorResponseTimes>("MonitorResponseTimes")({
  monitorId: Schema.String,
  period: ResponseTimesPeriod,
  regions: Schema.Array(RegionResponseTimes)
}) {}

const tenth = (ms: number) => Math.round(ms * 10) / 10
const phaseMean = (total: PhaseTotal) => total.count === 0 ? null : tenth(total.sumMs / total.count)

/** A bucket's point; the bucket holds at least one check. */
const pointOf = (bucketStart: number, totals: BucketTotals) =>
  new ResponseTimePoint({
    at: DateTime.makeUnsafe(bucketStart),
    count: totals.histogram.count,
    p50Ms: tenth(Histogram.percentile(totals.histogram, 0.5)!),
    p95Ms: tenth(Histogram.percentile(totals.histogram, 0.95)!),
    p99Ms: tenth(Histogram.percentile(totals.histogram, 0.99)!),
    meanMs: tenth(Histogram.mean(totals.histogram)!),
    dnsMs: phaseMean(totals.phases.dns),
    connectMs: phaseMean(totals.phases.connect),
    tlsMs: phaseMean(totals.phases.tls),
    firstByteMs: phaseMean(totals.phases.firstByte)
  })

/**
 * The regions' points from rollup rows of one granularity: rows of the same region and bucket
 * (a component's several monitors) are merged; regions sorted by name, points oldest first.
 */
export const regionsOf = (
  rows: ReadonlyArray<BucketTotals & { readonly region: string; readonly bucketStart: number }>
): Array<RegionResponseTimes> => {
  const byRegion = new Map<string, Map<number, BucketTotals>>()
  for (const row of rows) {
    if (row.histogram.count === 0) continue
    const buckets = byRegion.get(row.region) ?? new Map<number, BucketTotals>()
    const before = buckets.get(row.bucketStart)
    buckets.set(
      row.bucketStart,
      before === undefined ? row : {
        histogram: Histogram.merge(before.histogram, row.histogram),
        phases: addPhases(before.phases, row.phases)
      }
    )
    byRegion.set(row.region, buckets)
  }
  return [...byRegion.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([region, buckets]) =>
    new RegionResponseTimes({
      region,
      points: [...buckets.entries()].sort(([a], [b]) => a - b).map(([at, totals]) => pointOf(at, totals))
    })
  )
}
