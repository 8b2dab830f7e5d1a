/**
 * Recurring maintenance: when the occurrences of a series start and end. Occurrences follow the
 * organization's wall clock, not UTC: a weekly window at 02:00 stays at 02:00 local across a
 * daylight-saving change. Node has no Temporal yet, so wall time and UTC are converted here with
 * Intl.DateTimeFormat. Pure; times are epoch milliseconds.
 */
import { Schema } from "effect"

import { UtcTimestamp } from "./Timestamps.js"

export const RecurrenceFrequency = Schema.Literals(["daily", "weekly", "monthly"])
export type RecurrenceFrequency = typeof RecurrenceFrequency.Type

export const recurrenceLimits = { interval: { min: 1, max: 52 }, count: { min: 1, max: 1000 } } as const

const fields = {
  frequency: RecurrenceFrequency,
  interval: Schema.Int.check(
    Schema.isBetween({ minimum: recurrenceLimits.interval.min, maximum: recurrenceLimits.interval.max })
  ),
  /** Total occurrences, the first included. */
  count: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: recurrenceLimits.count.min, maximum: recurrenceLimits.count.max }))
  )
}

/** A stored series' rule (`until` read back from the jsonb column as an ISO string). */
export const Recurrence = Schema.Struct({
  ...fields,
  /** No occurrence starts after it. */
  until: Schema.optionalKey(Schema.DateTimeUtcFromString)
}).annotate({ identifier: "Recurrence" })
export type Recurrence = typeof Recurrence.Type

/** A rule in a request body: `until` as the API takes timestamps. */
export const RecurrenceInput = Schema.Struct({ ...fields, until: Schema.optionalKey(UtcTimestamp) }).annotate({
  identifier: "RecurrenceInput"
})

/** The rule as it is stored in the jsonb column. */
export const encodeRecurrence = (rule: Recurrence): string => JSON.stringify(Schema.encodeSync(Recurrence)(rule))

interface WallTime {
  readonly year: number
  readonly month: number // 0-11
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterFor = (timeZone: string) => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The wall-clock time in `timeZone` at the instant `utc`. */
export const wallTimeAt = (utc: number, timeZone: string): WallTime => {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(timeZone).formatToParts(new Date(utc))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  return {
    year: parts.year!,
    month: parts.month! - 1,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
    millisecond: ((utc % 1000) + 1000) % 1000
  }
}

/** Date.UTC, without its reading of years 0–99 as 1900–1999. */
const utcMillis = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0) => {
  const date = new Date(0)
  date.setUTCFullYear(year, month, day)
  date.setUTCHours(hour, minute, second, millisecond)
  return date.getTime()
}

/** A wall time as if it were UTC: calendar arithmetic on it is plain UTC arithmetic. */
const naive = (wall: WallTime) =>
  utcMillis(wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond)

const fromNaive = (ms: number): WallTime => {
  const d = new Date(ms)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth(),
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds()
  }
}

/** How far `timeZone`'s wall clock is ahead of UTC at `utc`. */
const offsetAt = (utc: number, timeZone: string) => naive(wallTimeAt(utc, timeZone)) - utc

const day = 24 * 60 * 60 * 1000

/**
 * The instant showing `wall` in `timeZone`. A wall time skipped by a spring-forward change moves
 * forward by the gap (02:30 becomes 03:30); one that occurs twice at a fall-back change is its
 * first occurrence. (Zones change their offset at most once in a day, so the offsets a day either
 * side are the only candidates.)
 */
export const wallTimeToUtc = (wall: WallTime, timeZone: string): number => {
  const local = naive(wall)
  const before = offsetAt(local - day, timeZone)
  const after = offsetAt(local + day, timeZone)
  const valid = [local - before, local - after].filter((utc) => naive(wallTimeAt(utc, timeZone)) === local)
  // In a gap no candidate shows `wall`; the offset before the change puts it past the gap.
  return valid.length === 0 ? local - before : Math.min(...valid)
}

const daysInMonth = (year: number, month: number) => new Date(utcMillis(year, month + 1, 0)).getUTCDate()

/** `wall` moved on by `steps` of the frequency; a month lacking the day ends on its last day. */
const advance = (wall: WallTime, frequency: RecurrenceFrequency, steps: number): WallTime => {
  switch (frequency) {
    case "daily":
      return fromNaive(naive({ ...wall, day: wall.day + steps }))
    case "weekly":
      return fromNaive(naive({ ...wall, day: wall.day + 7 * steps }))
    case "monthly": {
      const months = wall.month + steps
      const year = wall.year + Math.floor(months / 12)
      const month = ((months % 12) + 12) % 12
      return { ...wall, year, month, day: Math.min(wall.day, daysInMonth(year, month)) }
    }
  }
}

export interface Span {
  readonly start: number
  readonly end: number
}

/**
 * Occurrence `index` (0 is the first window) of a series whose first window is `first`: its start
 * is the first start's wall time moved on by `index` × `interval` days, weeks or months; its end
 * keeps the first window's wall-clock duration.
 */
export const occurrenceAt = (
  first: Span,
  rule: Pick<Recurrence, "frequency" | "interval">,
  index: number,
  timeZone: string
): Span => {
  const firstStart = wallTimeAt(first.start, timeZone)
  const wallDuration = naive(wallTimeAt(first.end, timeZone)) - naive(firstStart)
  const startWall = advance(firstStart, rule.frequency, index * rule.interval)
  const start = wallTimeToUtc(startWall, timeZone)
  const end = wallTimeToUtc(fromNaive(naive(startWall) + wallDuration), timeZone)
  // A short window moved by a gap at its start only could otherwise end before it starts.
  return { start, end: end > start ? end : start + (first.end - first.start) }
}

/**
 * The occurrence to create after occurrence `after`: the first later one that has not ended at
 * `now` (occurrences missed while the service was down are skipped), unless the series' `count`
 * or `until` has ended it first.
 */
export const nextOccurrence = (
  first: Span,
  rule: Recurrence,
  after: number,
  now: number,
  timeZone: string
): (Span & { readonly index: number }) | undefined => {
  const until = rule.until === undefined ? undefined : rule.until.epochMilliseconds
  // Start near the answer rather than walk to it: a daily series begun in year 1 has 740,000
  // occurrences. `periods` counts whole periods on the wall clock from the first start to the
  // latest start of an occurrence not ended at `now`; two fewer covers the zone's offset changing
  // in between (by less than two days), and the loop steps on from there.
  const firstStart = wallTimeAt(first.start, timeZone)
  const wallDuration = naive(wallTimeAt(first.end, timeZone)) - naive(firstStart)
  const latestStart = fromNaive(naive(wallTimeAt(now, timeZone)) - wallDuration)
  const months = (latestStart.year - firstStart.year) * 12 + latestStart.month - firstStart.month
  const days = (naive(latestStart) - naive(firstStart)) / day
  const periods = Math.floor(
    (rule.frequency === "monthly" ? months : rule.frequency === "weekly" ? days / 7 : days) / rule.interval
  )
  for (let index = Math.max(after + 1, periods - 2);; index++) {
    if (rule.count !== undefined && index >= rule.count) return undefined
    const span = occurrenceAt(first, rule, index, timeZone)
    if (until !== undefined && span.start > until) return undefined
    if (span.end > now) return { ...span, index }
  }
}

/** "weekly", "every 2 weeks", with ", 5 times" when counted: what "Repeats …" says. */
export const repeatsEvery = (rule: Pick<Recurrence, "frequency" | "interval" | "count">) => {
  const unit = { daily: "day", weekly: "week", monthly: "month" }[rule.frequency]
  const every = rule.interval === 1 ? rule.frequency : `every ${rule.interval} ${unit}s`
  return rule.count === undefined ? every : `${every}, ${rule.count} times`
}
