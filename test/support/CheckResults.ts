import { CheckResult, jobIdOf } from "../../src/domain/CheckJob.js"

/** A probe's result for the run of `monitorId` due at `scheduledAt`: an http check that got 200, or 503. */
export const checkResult = (monitorId: string, region: string, scheduledAt: number, ok: boolean) =>
  new CheckResult({
    jobId: jobIdOf(monitorId, scheduledAt),
    monitorId,
    region,
    probe: `${region}-1`,
    scheduledAt,
    checkedAt: scheduledAt + 20,
    ok,
    durationMs: 12.5,
    timings: { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: 10 },
    statusCode: ok ? 200 : 503,
    error: ok ? null : "expected status 200, got 503",
    sslDaysLeft: null
  })
