import { DateTime } from "effect"
import { describe, expect, it, vi } from "vitest"

import type { Recurrence, Span } from "../../src/domain/Recurrence.js"
import { nextOccurrence, occurrenceAt, wallTimeAt, wallTimeToUtc } from "../../src/domain/Recurrence.js"

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()
const span = (start: string, end: string): Span => ({ start: at(start), end: at(end) })
const isoSpan = (s: Span) => [iso(s.start), iso(s.end)]
const wall = (year: number, month: number, day: number, hour: number, minute = 0) => ({
  year,
  month: month - 1,
  day,
  hour,
  minute,
  second: 0,
  millisecond: 0
})

describe("wall time and UTC", () => {
  it("reads the wall clock of a zone", () => {
    expect(wallTimeAt(at("2031-07-01T00:30:00.250Z"), "Europe/Paris")).toEqual({
      ...wall(2031, 7, 1, 2, 30),
      millisecond: 250
    })
    expect(wallTimeAt(at("2031-01-01T04:59:00Z"), "America/New_York")).toEqual(wall(2030, 12, 31, 23, 59))
  })

  it("converts an ordinary wall time either side of a change", () => {
    expect(iso(wallTimeToUtc(wall(2031, 3, 29, 2), "Europe/Paris"))).toBe("2031-03-29T01:00:00.000Z")
    expect(iso(wallTimeToUtc(wall(2031, 3, 31, 2), "Europe/Paris"))).toBe("2031-03-31T00:00:00.000Z")
    expect(iso(wallTimeToUtc(wall(2031, 6, 1, 12), "UTC"))).toBe("2031-06-01T12:00:00.000Z")
  })

  it("moves a time skipped by spring-forward on by the gap", () => {
    // Paris skips 02:00–03:00 on 30 March 2031; New York 02:00–03:00 on 9 March 2031.
    expect(iso(wallTimeToUtc(wall(2031, 3, 30, 2, 30), "Europe/Paris"))).toBe("2031-03-30T01:30:00.000Z")
    expect(wallTimeAt(at("2031-03-30T01:30:00Z"), "Europe/Paris")).toEqual(wall(2031, 3, 30, 3, 30))
    expect(iso(wallTimeToUtc(wall(2031, 3, 9, 2, 30), "America/New_York"))).toBe("2031-03-09T07:30:00.000Z")
  })

  it("takes the first of a time repeated by fall-back", () => {
    // Paris shows 02:00–03:00 twice on 26 October 2031; New York 01:00–02:00 on 2 November 2031.
    expect(iso(wallTimeToUtc(wall(2031, 10, 26, 2, 30), "Europe/Paris"))).toBe("2031-10-26T00:30:00.000Z")
    expect(iso(wallTimeToUtc(wall(2031, 11, 2, 1, 30), "America/New_York"))).toBe("2031-11-02T05:30:00.000Z")
  })
})

const weekly = { frequency: "weekly", interval: 1 } as const

describe("occurrences", () => {
  it("keep the local start across daylight-saving changes", () => {
    // Saturdays 02:00–04:00 in Paris: UTC+1 until 30 March 2031, UTC+2 after, UTC+1 from 26 October.
    const first = span("2031-03-22T01:00:00Z", "2031-03-22T03:00:00Z")
    expect([0, 1, 2].map((n) => isoSpan(occurrenceAt(first, weekly, n, "Europe/Paris")))).toEqual([
      ["2031-03-22T01:00:00.000Z", "2031-03-22T03:00:00.000Z"],
      ["2031-03-29T01:00:00.000Z", "2031-03-29T03:00:00.000Z"],
      ["2031-04-05T00:00:00.000Z", "2031-04-05T02:00:00.000Z"]
    ])
    expect(isoSpan(occurrenceAt(first, weekly, 32, "Europe/Paris"))).toEqual([
      "2031-11-01T01:00:00.000Z",
      "2031-11-01T03:00:00.000Z"
    ])
  })

  it("land in a spring-forward gap moved on by it, and on a fall-back repeat at its first", () => {
    // Daily 02:30–03:30 in New York.
    const first = span("2031-03-08T07:30:00Z", "2031-03-08T08:30:00Z")
    const daily = { frequency: "daily", interval: 1 } as const
    // 02:30 does not exist on 9 March: the window starts at 03:30 and keeps its hour.
    expect(isoSpan(occurrenceAt(first, daily, 1, "America/New_York"))).toEqual([
      "2031-03-09T07:30:00.000Z",
      "2031-03-09T08:30:00.000Z"
    ])
    expect(isoSpan(occurrenceAt(first, daily, 2, "America/New_York"))).toEqual([
      "2031-03-10T06:30:00.000Z",
      "2031-03-10T07:30:00.000Z"
    ])
    // Weekly Sundays 01:30–01:45 New York time, reaching 2 November (01:00–02:00 repeats).
    const sunday = span("2031-10-26T05:30:00Z", "2031-10-26T05:45:00Z")
    expect(isoSpan(occurrenceAt(sunday, weekly, 1, "America/New_York"))).toEqual([
      "2031-11-02T05:30:00.000Z",
      "2031-11-02T05:45:00.000Z"
    ])
  })

  it("every 2 weeks, and monthly on the last day a month lacks the day", () => {
    const first = span("2031-01-31T22:00:00Z", "2031-01-31T23:00:00Z")
    const monthly = { frequency: "monthly", interval: 1 } as const
    expect([1, 2, 3, 12].map((n) => iso(occurrenceAt(first, monthly, n, "UTC").start))).toEqual([
      "2031-02-28T22:00:00.000Z",
      "2031-03-31T22:00:00.000Z",
      "2031-04-30T22:00:00.000Z",
      "2032-01-31T22:00:00.000Z"
    ])
    // 2032 is a leap year; the end keeps the local duration even across midnight.
    const lateNight = span("2031-01-31T23:30:00Z", "2031-02-01T00:30:00Z")
    expect(isoSpan(occurrenceAt(lateNight, { frequency: "monthly", interval: 13 }, 1, "UTC"))).toEqual([
      "2032-02-29T23:30:00.000Z",
      "2032-03-01T00:30:00.000Z"
    ])
    expect(iso(occurrenceAt(first, { frequency: "weekly", interval: 2 }, 1, "UTC").start)).toBe(
      "2031-02-14T22:00:00.000Z"
    )
  })
})

describe("the next occurrence", () => {
  const first = span("2031-01-01T09:00:00Z", "2031-01-01T10:00:00Z")
  const daily = (extra: Partial<Recurrence> = {}): Recurrence => ({ frequency: "daily", interval: 1, ...extra })

  it("follows the one that started", () => {
    expect(nextOccurrence(first, daily(), 0, first.start, "UTC")).toEqual({
      index: 1,
      start: at("2031-01-02T09:00:00Z"),
      end: at("2031-01-02T10:00:00Z")
    })
  })

  it("skips those that ended while nobody ran, but not one still running", () => {
    expect(nextOccurrence(first, daily(), 0, at("2031-01-05T09:30:00Z"), "UTC")?.index).toBe(4)
    expect(nextOccurrence(first, daily(), 0, at("2031-01-05T10:00:00Z"), "UTC")?.index).toBe(5)
  })

  it("stops after count occurrences, the first included", () => {
    expect(nextOccurrence(first, daily({ count: 3 }), 1, first.start, "UTC")?.index).toBe(2)
    expect(nextOccurrence(first, daily({ count: 3 }), 2, first.start, "UTC")).toBeUndefined()
    expect(nextOccurrence(first, daily({ count: 1 }), 0, first.start, "UTC")).toBeUndefined()
    // Missed ones count too.
    expect(nextOccurrence(first, daily({ count: 3 }), 0, at("2031-01-09T00:00:00Z"), "UTC")).toBeUndefined()
  })

  it("finds the next of a series begun centuries ago, and keeps early years as they are", () => {
    const ancient = span("1026-01-01T09:00:00Z", "1026-01-01T10:00:00Z")
    const next = nextOccurrence(ancient, daily(), 0, at("2031-01-05T09:30:00Z"), "Europe/Paris")
    // 09:00 UTC was 09:09:21 in Paris (local mean time, 1026); the series keeps that wall time.
    expect(iso(next!.start).slice(0, 10)).toBe("2031-01-06")
    expect(next!.end - next!.start).toBe(60 * 60 * 1000)
    // Years below 100 are not read as 19xx.
    const early = span("0026-03-01T09:00:00Z", "0026-03-01T10:00:00Z")
    expect(iso(occurrenceAt(early, { frequency: "monthly", interval: 1 }, 1, "UTC").start)).toBe(
      "0026-04-01T09:00:00.000Z"
    )
  })

  it("finds the next of a daily series dated year 1 without walking to it", () => {
    // Each occurrence tried reads the wall clock with Intl a few times: count those reads.
    const reads = vi.spyOn(Intl.DateTimeFormat.prototype, "formatToParts")
    try {
      const ancient = span("0001-01-01T09:00:00Z", "0001-01-01T10:00:00Z")
      const now = at("2031-01-05T12:00:00Z")
      const day = 24 * 60 * 60 * 1000
      for (const timeZone of ["UTC", "Europe/Paris"]) {
        reads.mockClear()
        const next = nextOccurrence(ancient, daily(), 0, now, timeZone)
        expect(next?.index).toBe((at("2031-01-06T00:00:00Z") - at("0001-01-01T00:00:00Z")) / day)
        expect(iso(next!.start).slice(0, 10)).toBe("2031-01-06")
        expect(reads.mock.calls.length).toBeLessThan(100)
      }
      // Weekly and monthly too.
      reads.mockClear()
      const weekly = nextOccurrence(ancient, { frequency: "weekly", interval: 3 }, 0, now, "UTC")
      expect(weekly!.start).toBeGreaterThan(now)
      expect(weekly!.start - 21 * day).toBeLessThanOrEqual(now)
      const monthly = nextOccurrence(ancient, { frequency: "monthly", interval: 1 }, 0, now, "UTC")
      expect(iso(monthly!.start)).toBe("2031-02-01T09:00:00.000Z")
      expect(monthly!.index).toBe(2030 * 12 + 1)
      expect(reads.mock.calls.length).toBeLessThan(200)
    } finally {
      reads.mockRestore()
    }
  })

  it("starts none after until", () => {
    const until = DateTime.makeUnsafe("2031-01-03T09:00:00Z")
    expect(nextOccurrence(first, daily({ until }), 1, first.start, "UTC")?.index).toBe(2)
    expect(nextOccurrence(first, daily({ until }), 2, first.start, "UTC")).toBeUndefined()
  })
})
