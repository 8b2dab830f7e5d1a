/**
 * Which probe reports ingest accepts: only those of runs that were scheduled (a slot of the
 * monitor, not ahead of the clock), from regions the monitor asks for.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"

import {
  CheckResult,
  errorMaxLength,
  jobIdOf,
  maxReportedMs,
  MissedCheck,
  ProbeReport,
  reportWindowMs
} from "../../src/domain/CheckJob.js"
import {
  admit,
  clampFailingSince,
  clockSkewMs,
  continuedStatus,
  countByReason,
  defaultBounds,
  lateBoundMs,
  queueWaitAllowanceMs,
  rejectionOf
} from "../../src/domain/ResultAdmission.js"
import { slotAt } from "../../src/domain/Slots.js"
import { checkResult } from "../support/CheckResults.js"

const minute = 60_000
const everywhere = { id: "m1", intervalSeconds: 60, regions: null }
const euAndUs = { id: "m2", intervalSeconds: 60, regions: ["eu", "us"] }
// A moment that is a slot of m1 and of m2 (offsets from their ids): runs of both at `now` and whole minutes away.
const now = slotAt("m1", minute, 1_700_000_000_000)
const m2Shift = now - slotAt("m2", minute, now)
const m2At = (at: number) => at - m2Shift

const miss = (monitorId: string, region: string, scheduledAt: number) =>
  new MissedCheck({
    jobId: jobIdOf(monitorId, scheduledAt),
    monitorId,
    region,
    probe: `${region}-1`,
    scheduledAt,
    recordedAt: scheduledAt + 61_000,
    reason: "late"
  })

describe("result admission", () => {
  it("accepts a result or a miss of a run of a known monitor, from any region when it names none", () => {
    expect(rejectionOf(checkResult("m1", "eu", now - minute, false), everywhere, now + 30_000)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "anywhere", now, true), everywhere, now)).toBeUndefined()
    expect(rejectionOf(miss("m1", "ap", now - 2 * minute), everywhere, now)).toBeUndefined()
    expect(rejectionOf(checkResult("m2", "us", m2At(now), true), euAndUs, now)).toBeUndefined()
  })

  it("refuses a report of a monitor that does not exist", () => {
    expect(rejectionOf(checkResult("ghost", "eu", now, false), undefined, now)).toBe("unknown_monitor")
    expect(rejectionOf(miss("ghost", "eu", now), undefined, now)).toBe("unknown_monitor")
  })

  it("refuses a jobId that is not monitorId:scheduledAt", () => {
    const forged = CheckResult.make({ ...checkResult("m1", "eu", now, false), jobId: jobIdOf("m1", now - minute) })
    expect(rejectionOf(forged, everywhere, now)).toBe("job_id_mismatch")
    const otherMonitor = CheckResult.make({ ...checkResult("m1", "eu", now, false), jobId: jobIdOf("m2", now) })
    expect(rejectionOf(otherMonitor, everywhere, now)).toBe("job_id_mismatch")
  })

  it("refuses a run dated later than now plus the clock skew; at the skew it is accepted", () => {
    const slot = now + 2 * minute
    expect(rejectionOf(checkResult("m1", "eu", slot, false), everywhere, slot - clockSkewMs)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "eu", slot, false), everywhere, slot - clockSkewMs - 1)).toBe(
      "scheduled_in_future"
    )
    const century = 100 * 525_960 * minute
    expect(rejectionOf(checkResult("m1", "eu", now + century, false), everywhere, now)).toBe("scheduled_in_future")
    expect(rejectionOf(miss("m1", "eu", now + century), everywhere, now)).toBe("scheduled_in_future")
  })

  it("refuses a run that is not one of the monitor's slots for its interval as stored now", () => {
    // One millisecond off a slot: a run the scheduler never published, whatever its id says.
    for (const at of [now - 1, now + 1, now - 30_000]) {
      expect(rejectionOf(checkResult("m1", "eu", at, true), everywhere, now), String(at)).toBe("off_schedule")
      expect(rejectionOf(miss("m1", "eu", at), everywhere, now), String(at)).toBe("off_schedule")
    }
    // Another monitor's slots are its own (its offset comes from its id).
    expect(m2Shift).not.toBe(0)
    expect(rejectionOf(checkResult("m2", "eu", now, true), euAndUs, now)).toBe("off_schedule")
    // An interval change moves the grid: a run of the 60 s grid is off the 300 s one, unless on both.
    const every5 = { ...everywhere, intervalSeconds: 300 }
    const slot5 = slotAt("m1", 5 * minute, now)
    expect(rejectionOf(checkResult("m1", "eu", slot5, true), every5, now)).toBeUndefined()
    // Both grids come from one hash, so the 300 s slots are 60 s slots too; the others are not.
    const onlyOld = slot5 - minute
    expect(rejectionOf(checkResult("m1", "eu", onlyOld, true), everywhere, now)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "eu", onlyOld, true), every5, now)).toBe("off_schedule")
  })

  it("refuses a region the monitor does not ask for", () => {
    expect(rejectionOf(checkResult("m2", "ap", m2At(now), false), euAndUs, now)).toBe("region_not_monitored")
    expect(rejectionOf(miss("m2", "ap", m2At(now)), euAndUs, now)).toBe("region_not_monitored")
  })

  it("refuses a run before the slot in progress at the monitor's creation, less the clock skew", () => {
    // Created a minute ago: a week of slots back from now, and slots of 1970, are forged history.
    const created = { ...everywhere, createdAt: now - minute + 1 }
    const first = slotAt("m1", minute, created.createdAt - clockSkewMs)
    expect(first).toBe(now - 2 * minute)
    expect(rejectionOf(checkResult("m1", "eu", first, false), created, now)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "eu", first - minute, false), created, now)).toBe("before_creation")
    expect(rejectionOf(miss("m1", "eu", first - minute), created, now)).toBe("before_creation")
    expect(rejectionOf(checkResult("m1", "eu", now - 7 * 24 * 60 * minute, false), created, now)).toBe(
      "before_creation"
    )
    expect(rejectionOf(checkResult("m1", "eu", slotAt("m1", minute, minute), false), created, now)).toBe(
      "before_creation"
    )
  })

  it("after a resume, counts runs from the slot in progress then, less the skew: the scheduler's first one", () => {
    const resumed = { ...everywhere, createdAt: now - 60 * minute, resumedAt: now - minute + 1 }
    const first = slotAt("m1", minute, resumed.resumedAt - clockSkewMs)
    expect(first).toBeLessThan(resumed.resumedAt)
    expect(rejectionOf(checkResult("m1", "eu", first, false), resumed, now)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "eu", first - minute, false), resumed, now)).toBe("before_resume")
  })

  it("refuses a result later than the bound, a miss later than the retention; honest late ones are accepted", () => {
    // 3 intervals + 2 claim times + 2 skews + 60 s: 7 minutes for a 60 s monitor with the defaults.
    const bound = lateBoundMs(minute, defaultBounds.claimIdleMs)
    expect(bound).toBe(7 * minute)
    expect(lateBoundMs(10_000, 30_000)).toBe(270_000)
    expect(lateBoundMs(86_400_000, 30_000)).toBe(3 * 86_400_000 + 240_000)
    const oldest = now - bound
    expect(rejectionOf(checkResult("m1", "eu", oldest, true), everywhere, now)).toBeUndefined()
    expect(rejectionOf(checkResult("m1", "eu", oldest - minute, true), everywhere, now)).toBe("too_late")
    // A longer claim time widens it.
    const slowClaims = { ...defaultBounds, claimIdleMs: 5 * minute }
    expect(rejectionOf(checkResult("m1", "eu", oldest - minute, true), everywhere, now, slowClaims)).toBeUndefined()
    // A miss changes no state: it is accepted as long as misses are kept.
    expect(rejectionOf(miss("m1", "eu", now - 6 * 24 * 60 * minute), everywhere, now)).toBeUndefined()
    expect(rejectionOf(miss("m1", "eu", now - 8 * 24 * 60 * minute), everywhere, now)).toBe("too_late")
    // Judged when the report reached the queue: one that waited there for ingest (an ingest or
    // database outage) is not late for it; a queue clock ahead of ours buys no time.
    const waited = checkResult("m1", "eu", oldest - 30 * minute, true)
    expect(rejectionOf(waited, everywhere, now, defaultBounds, () => waited.scheduledAt + minute)).toBeUndefined()
    expect(rejectionOf(waited, everywhere, now, defaultBounds, () => now + 60 * minute)).toBe("too_late")
    // A probe may give its Redis entries explicit ids: an arrival before the run itself, or more
    // than the allowance back, is not believed.
    expect(rejectionOf(waited, everywhere, now, defaultBounds, () => 0)).toBe("too_late")
    const longAgo = checkResult("m1", "eu", now - queueWaitAllowanceMs - 60 * minute, true)
    expect(rejectionOf(longAgo, everywhere, now, defaultBounds, () => longAgo.scheduledAt + minute)).toBe("too_late")
  })

  it("a streak reaches back no further than the bound, nor before the monitor existed", () => {
    const failing = {
      region: "eu",
      lastScheduledAt: now - 7 * 24 * 60 * minute,
      lastCheckedAt: now - 7 * 24 * 60 * minute,
      lastOk: false,
      consecutiveFailures: 4,
      failingSince: now - 8 * 24 * 60 * minute,
      lastStatusCode: 503,
      lastError: "down",
      lastDurationMs: 1
    }
    // A week-old failure on record is not continued by a failure now; a recent one is.
    expect(continuedStatus(failing, now, minute, 30_000)).toBeUndefined()
    const recent = { ...failing, lastScheduledAt: now - 7 * minute }
    expect(continuedStatus(recent, now, minute, 30_000)).toBe(recent)
    expect(continuedStatus(undefined, now, minute, 30_000)).toBeUndefined()
    // A streak starting at the slot in progress at creation starts at the creation.
    const started = { ...recent, failingSince: now - 2 * minute }
    expect(clampFailingSince(started, { createdAt: now - minute, resumedAt: null }).failingSince).toBe(now - minute)
    expect(clampFailingSince(started, { createdAt: now - 9 * minute, resumedAt: now - 30_000 }).failingSince).toBe(
      now - 30_000
    )
    expect(clampFailingSince(started, { createdAt: now - 9 * minute, resumedAt: null })).toBe(started)
    // The database's creation time has microseconds; a region's state keeps whole milliseconds
    // (a fraction made PostgreSQL refuse the report: 22P02, and the result was dropped).
    const fractional = clampFailingSince(started, { createdAt: now - minute + 0.71, resumedAt: null })
    expect(fractional.failingSince).toBe(now - minute + 1)
    const succeeding = { ...started, lastOk: true, failingSince: null }
    expect(clampFailingSince(succeeding, { createdAt: now, resumedAt: null })).toBe(succeeding)
  })

  it("splits a batch into the reports accepted, in order, and the refused with their reasons", () => {
    const ok1 = checkResult("m1", "eu", now - minute, true)
    const ok2 = checkResult("m2", "eu", m2At(now - minute), false)
    const future = checkResult("m1", "eu", now + 60 * minute, false)
    const elsewhere = checkResult("m2", "sa", m2At(now), false)
    const ghost = checkResult("ghost", "eu", now, false)
    const minted = checkResult("m1", "eu", now - 1, false)
    const { admitted, rejected } = admit([ok1, future, elsewhere, ok2, ghost, minted], [everywhere, euAndUs], now)
    expect(admitted).toEqual([ok1, ok2])
    expect(rejected.map(({ reason, report }) => [report, reason])).toEqual([
      [future, "scheduled_in_future"],
      [elsewhere, "region_not_monitored"],
      [ghost, "unknown_monitor"],
      [minted, "off_schedule"]
    ])
    expect(countByReason(rejected)).toEqual({
      scheduled_in_future: 1,
      region_not_monitored: 1,
      unknown_monitor: 1,
      off_schedule: 1
    })
  })

  it("caps the strings of a report when it is decoded", () => {
    const decode = Schema.decodeUnknownResult(ProbeReport)
    const valid = { ...checkResult("m1", "eu", now, false) }
    expect(decode({ ...valid, error: "x".repeat(errorMaxLength) })._tag).toBe("Success")
    for (
      const [field, value] of [
        ["error", "x".repeat(errorMaxLength + 1)],
        ["probe", "p".repeat(129)],
        ["monitorId", "m".repeat(101)],
        ["jobId", "j".repeat(129)],
        ["region", "r".repeat(64)]
      ] as const
    ) {
      expect(decode({ ...valid, [field]: value })._tag, field).toBe("Failure")
    }
    expect(decode({ ...miss("m1", "eu", now), probe: "p".repeat(129) })._tag).toBe("Failure")
  })
})

describe("report decoding", () => {
  const decode = Schema.decodeUnknownResult(ProbeReport)
  const valid = { ...checkResult("m1", "eu", now, false) }
  const missed = { ...miss("m1", "eu", now) }
  const day = 24 * 60 * minute

  it("refuses what PostgreSQL would refuse: a NUL or an unpaired surrogate in any string, a time past any Date", () => {
    for (const field of ["error", "probe", "monitorId", "jobId", "region"] as const) {
      expect(decode({ ...valid, [field]: "x\u0000" })._tag, `${field} with NUL`).toBe("Failure")
      expect(decode({ ...valid, [field]: "x\uD800" })._tag, `${field} with a lone surrogate`).toBe("Failure")
    }
    expect(decode({ ...missed, probe: "p\u0000" })._tag).toBe("Failure")
    expect(decode({ ...missed, region: "\uDC00" })._tag).toBe("Failure")
    // A pair is fine: an emoji in an error is text.
    expect(decode({ ...valid, error: "down \uD83D\uDD25" })._tag).toBe("Success")
    expect(decode({ ...valid, scheduledAt: 9e15, checkedAt: 9e15, jobId: jobIdOf("m1", 9e15) })._tag).toBe("Failure")
  })

  it("refuses absurd numbers: status codes outside 100-599, out-of-range days left, endless durations", () => {
    for (const statusCode of [99, 600, 2 ** 31, -1, 200.5]) {
      expect(decode({ ...valid, statusCode })._tag, String(statusCode)).toBe("Failure")
    }
    for (const statusCode of [100, 599, null]) expect(decode({ ...valid, statusCode })._tag).toBe("Success")
    for (const sslDaysLeft of [2 ** 31, -(2 ** 31), 3_000_001]) {
      expect(decode({ ...valid, sslDaysLeft })._tag, String(sslDaysLeft)).toBe("Failure")
    }
    // The last day a certificate can carry, 9999-12-31, is within the bound.
    const farthest = Math.ceil((Date.UTC(9999, 11, 31) - now) / day)
    expect(decode({ ...valid, sslDaysLeft: farthest })._tag).toBe("Success")
    expect(decode({ ...valid, sslDaysLeft: -farthest })._tag).toBe("Success")
    for (const durationMs of [1.5e308, maxReportedMs + 0.01, -1]) {
      expect(decode({ ...valid, durationMs })._tag, String(durationMs)).toBe("Failure")
      for (const timing of ["dnsMs", "connectMs", "tlsMs", "firstByteMs"] as const) {
        expect(decode({ ...valid, timings: { ...valid.timings, [timing]: durationMs } })._tag, timing).toBe("Failure")
      }
    }
    expect(decode({ ...valid, durationMs: maxReportedMs, timings: { ...valid.timings, dnsMs: maxReportedMs } })._tag)
      .toBe("Success")
  })

  it("refuses a check started or a miss recorded more than two days from its run", () => {
    for (
      const [offset, tag] of [[reportWindowMs, "Success"], [-reportWindowMs, "Success"], [
        reportWindowMs + 1,
        "Failure"
      ], [
        -reportWindowMs - 1,
        "Failure"
      ]] as const
    ) {
      expect(decode({ ...valid, checkedAt: now + offset })._tag, `checked ${offset}`).toBe(tag)
      expect(decode({ ...missed, recordedAt: now + offset })._tag, `recorded ${offset}`).toBe(tag)
    }
    // A daily monitor's job taken a whole interval late is recorded as missed, within the window.
    expect(reportWindowMs).toBeGreaterThan(day + clockSkewMs)
  })
})
