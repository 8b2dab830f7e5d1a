import { CheckResult, type CheckTimings, jobIdOf } from "../../src/domain/CheckJob.js"
import { slotAt } from "../../src/domain/Slots.js"

/**
 * The latest run of `monitorId` at or before `at` (a slot of its interval, 60 s by default):
 * ingest admits reports of such runs only.
 */
export const slotOf = (monitorId: string, at: number, intervalSeconds = 60) =>
  slotAt(monitorId, intervalSeconds * 1000, at)

/** The first run of `monitorId` at or after `at` (within one interval, 60 s by default). */
export const slotFrom = (monitorId: string, at: number, intervalSeconds = 60) =>
  slotAt(monitorId, intervalSeconds * 1000, at + intervalSeconds * 1000 - 1)

/** What a result measured, where a test needs other than a 12.5 ms check with connect and first-byte times only. */
export interface Measured {
  readonly durationMs?: number
  readonly timings?: CheckTimings
}

/** A probe's result for the run of `monitorId` due at `scheduledAt`: an http check that got 200, or 503. */
export const checkResult = (
  monitorId: string,
  region: string,
  scheduledAt: number,
  ok: boolean,
  measured: Measured = {}
) =>
  CheckResult.make({
    jobId: jobIdOf(monitorId, scheduledAt),
    monitorId,
    region,
    probe: `${region}-1`,
    scheduledAt,
    checkedAt: scheduledAt + 20,
    ok,
    durationMs: measured.durationMs ?? 12.5,
    timings: measured.timings ?? { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: 10 },
    statusCode: ok ? 200 : 503,
    error: ok ? null : "expected status 200, got 503",
    sslDaysLeft: null
  })
