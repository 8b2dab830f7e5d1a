/**
 * One Uptime Kuma maintenance (a row of its `maintenance` table) as windows to come here. Kuma
 * keeps a window's dates and times as wall-clock times of its time zone (`timezone`, or the
 * server's); they become UTC instants. A one-off window (`single`) that has ended is left out. A
 * recurring one (`recurring-weekday`, `recurring-day-of-month`, `recurring-interval`, or a
 * `cron` that is a daily, weekly or monthly time) becomes a series per weekday or day of the
 * month, whose first window is the next one not over; a series here repeats in the
 * organization's time zone (src/domain/Recurrence.ts), which the note on each says.
 */
import { Effect } from "effect"

import { MaintenanceEntry } from "../../domain/Configuration.js"
import type { SkippedRecord } from "../../domain/ImportBundle.js"
import {
  nextOccurrence,
  type RecurrenceFrequency,
  recurrenceLimits,
  type Span,
  wallTimeAt,
  wallTimeToUtc
} from "../../domain/Recurrence.js"
import type { ImportSourceError } from "./ImportSourceError.js"
import {
  checkedEntry,
  flag,
  idOf,
  isoOf,
  jsonColumn,
  type KumaRow,
  num,
  recordName,
  skip,
  text,
  type WallTime,
  wallTimeOf
} from "./KumaRow.js"

export interface KumaMaintenanceInput {
  readonly row: KumaRow
  /** The keys of the imported components of the monitors it names (`monitor_maintenance`). */
  readonly components: ReadonlyArray<string>
  /** Kuma's `serverTimezone` setting: the zone of a window set to "same as server". */
  readonly serverTimeZone: string | null
  readonly now: number
}

export interface KumaMaintenanceOutcome {
  readonly entries: ReadonlyArray<typeof MaintenanceEntry.Encoded>
  readonly skipped: ReadonlyArray<SkippedRecord>
}

/** One series a recurring window becomes: the days it falls on, and how it repeats. */
interface Series {
  /** Appended to the key (`uptime-kuma/maintenance/2/tue`), so each series keeps its own. */
  readonly suffix: string | null
  readonly frequency: RecurrenceFrequency
  readonly interval: number
  /** The day of the month of a monthly series. */
  readonly monthDay?: number
  readonly falls: (date: WallTime) => boolean
}

interface Schedule {
  readonly hour: number
  readonly minute: number
  readonly durationSeconds: number
  readonly series: ReadonlyArray<Series>
}

const weekdayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const
const weekdayOf = (date: WallTime) => new Date(Date.UTC(date.year, date.month, date.day)).getUTCDay()

const weekly = (days: ReadonlyArray<number>): Array<Series> =>
  // Cron and Kuma count Sunday as 0, and cron as 7 too.
  [...new Set(days.map((day) => day % 7))].sort((a, b) => a - b).map((day) => ({
    suffix: weekdayNames[day]!,
    frequency: "weekly",
    interval: 1,
    falls: (date) => weekdayOf(date) === day
  }))

const monthly = (days: ReadonlyArray<number>): Array<Series> =>
  [...new Set(days)].sort((a, b) => a - b).map((day) => ({
    suffix: `day-${day}`,
    frequency: "monthly",
    interval: 1,
    monthDay: day,
    falls: (date) => date.day === day
  }))

const daily = (interval: number): Series => ({ suffix: null, frequency: "daily", interval, falls: () => true })

const isZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const clockTime = (value: string | null) => {
  const match = value === null ? null : /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(value.trim())
  return match === null || Number(match[1]) > 23 || Number(match[2]) > 59
    ? null
    : { hour: Number(match[1]), minute: Number(match[2]) }
}

const integers = (value: unknown, min: number, max: number): Array<number> =>
  Array.isArray(value) ? value.filter((day): day is number => Number.isInteger(day) && day >= min && day <= max) : []

const cronList = (field: string, min: number, max: number): Array<number> | null =>
  /^\d+(,\d+)*$/.test(field) && field.split(",").every((n) => Number(n) >= min && Number(n) <= max)
    ? field.split(",").map(Number)
    : null

/** A cron line that is one time a day, on weekdays or on days of the month (what ours can repeat), or null. */
const cronSchedule = (cron: string, durationSeconds: number): Schedule | null => {
  const fields = cron.trim().split(/\s+/)
  // Croner takes an optional seconds field first.
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields.length === 6 && fields[0] === "0"
    ? fields.slice(1)
    : fields
  if (fields.length < 5 || fields.length > 6 || month !== "*" || !/^\d+$/.test(minute!) || !/^\d+$/.test(hour!)) {
    return null
  }
  const time = { hour: Number(hour), minute: Number(minute), durationSeconds }
  if (time.hour > 23 || time.minute > 59) return null
  if (dayOfMonth === "*" && dayOfWeek === "*") return { ...time, series: [daily(1)] }
  const weekdays = dayOfMonth === "*" ? cronList(dayOfWeek!, 0, 7) : null
  if (weekdays !== null) return { ...time, series: weekly(weekdays) }
  const days = dayOfWeek === "*" ? cronList(dayOfMonth!, 1, 31) : null
  return days === null ? null : { ...time, series: monthly(days) }
}

/** The first window of a series at or after `from`: the first day it falls on, at its time. */
const firstWindow = (from: number, zone: string, schedule: Schedule, series: Series): Span | undefined => {
  const anchor = wallTimeAt(from, zone)
  // 62 days hold every day of the month that exists (a 31st within two months).
  for (let offset = 0; offset <= 62; offset++) {
    const date = new Date(Date.UTC(anchor.year, anchor.month, anchor.day + offset))
    const wall = {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth(),
      day: date.getUTCDate(),
      hour: schedule.hour,
      minute: schedule.minute,
      second: 0,
      millisecond: 0
    }
    if (!series.falls(wall)) continue
    const start = wallTimeToUtc(wall, zone)
    if (start >= from) return { start, end: start + schedule.durationSeconds * 1000 }
  }
  return undefined
}

const pad = (n: number) => String(n).padStart(2, "0")

/** How a recurring window repeats (Kuma's `strategy`), or why ours cannot repeat it so. */
const scheduleOf = (
  row: KumaRow,
  record: string,
  strategy: string,
  note: (column: string, reason: string) => void
): Effect.Effect<Schedule | string, ImportSourceError> =>
  Effect.gen(function*() {
    const time = clockTime(text(row, "start_time"))
    const end = clockTime(text(row, "end_time"))
    // Kuma's own: the end's clock time after the start's, else on the next day.
    const computed = time === null || end === null
      ? null
      : ((end.hour - time.hour) * 3600 + (end.minute - time.minute) * 60 + 86400) % 86400 || 86400
    const durationSeconds = (num(row, "duration") ?? 0) > 0 ? num(row, "duration")! : computed
    if (strategy === "cron") {
      const cron = text(row, "cron")
      return (durationSeconds === null ? null : cronSchedule(cron ?? "", durationSeconds)) ??
        `its cron ${
          JSON.stringify(cron)
        } is not one time a day, on weekdays or on days of the month, which is what ours repeat`
    }
    if (!["recurring-weekday", "recurring-day-of-month", "recurring-interval"].includes(strategy)) {
      return `its strategy ${JSON.stringify(strategy)} has no counterpart`
    }
    if (time === null || durationSeconds === null) return "its start or end time is not a time of day"
    if (strategy === "recurring-weekday") {
      const days = integers(yield* jsonColumn(record, row, "weekdays"), 0, 7)
      return days.length === 0 ? "it repeats on no weekday" : { ...time, durationSeconds, series: weekly(days) }
    }
    if (strategy === "recurring-day-of-month") {
      const given = yield* jsonColumn(record, row, "days_of_month")
      const days = integers(given, 1, 31)
      const lastDays = Array.isArray(given) ? given.filter((day) => typeof day === "string") : []
      if (lastDays.length > 0) {
        note(
          "days_of_month",
          `${lastDays.join(", ")} left out: ours repeat on a day of the month, not counted from its end`
        )
      }
      return days.length === 0
        ? "it repeats on no day of the month that ours can"
        : { ...time, durationSeconds, series: monthly(days) }
    }
    const every = num(row, "interval_day") ?? 1
    return Number.isInteger(every) && every >= recurrenceLimits.interval.min && every <= recurrenceLimits.interval.max
      ? { ...time, durationSeconds, series: [daily(every)] }
      : `it repeats every ${every} days; ours repeat every 1 to ${recurrenceLimits.interval.max} days`
  })

/** Kuma's maintenance `row` as windows to come, with what is left out. */
export const kumaMaintenance = (
  input: KumaMaintenanceInput
): Effect.Effect<KumaMaintenanceOutcome, ImportSourceError> =>
  Effect.gen(function*() {
    const { components, now, row } = input
    const title = text(row, "title") ?? ""
    const record = recordName("maintenance", row, title)
    const key = `uptime-kuma/maintenance/${idOf(row)}`
    const strategy = text(row, "strategy") ?? "single"
    const skipped: Array<SkippedRecord> = []
    const none = (reason: string): KumaMaintenanceOutcome => ({ entries: [], skipped: [skip(record, reason)] })
    if (!flag(row, "active")) return none("it is paused in Kuma")
    if (strategy === "manual") {
      return none(
        "it is switched on and off by hand in Kuma; a window here has a start and an end: schedule one when it is due"
      )
    }
    const option = text(row, "timezone")
    const zone = option === null || option === "SAME_AS_SERVER" ? input.serverTimeZone ?? "UTC" : option
    if (!isZone(zone)) return none(`its time zone ${JSON.stringify(zone)} is not one this machine knows`)
    if ((option === null || option === "SAME_AS_SERVER") && input.serverTimeZone === null) {
      skipped.push(
        skip(`${record}: timezone`, "was the Kuma server's, which its database does not record: read as UTC")
      )
    }
    if (components.length === 0) {
      skipped.push(
        skip(
          `${record}: monitors`,
          "it names no imported monitor: the window names no component, so it shows on the default page only"
        )
      )
    }
    const description = text(row, "description") ?? ""
    const base = {
      title,
      ...(description === "" ? {} : { description }),
      ...(components.length === 0 ? {} : { components })
    }
    const startDate = wallTimeOf(text(row, "start_date"))
    const endDate = wallTimeOf(text(row, "end_date"))
    const rangeStart = startDate === null ? null : wallTimeToUtc(startDate, zone)
    const rangeEnd = endDate === null ? null : wallTimeToUtc(endDate, zone)
    const entries: Array<typeof MaintenanceEntry.Encoded> = []
    const add = (entry: typeof MaintenanceEntry.Encoded) => {
      const checked = checkedEntry(MaintenanceEntry, entry)
      if ("problem" in checked) skipped.push(skip(record, `it would be refused: ${checked.problem}`))
      else entries.push(checked.entry)
    }

    if (strategy === "single") {
      if (rangeStart === null || rangeEnd === null) return none("its start or end is not a date")
      if (rangeEnd <= now) return none(`it ended at ${isoOf(rangeEnd)}: only windows to come are imported`)
      if (rangeEnd <= rangeStart) return none("it ends before it starts")
      add({ key, ...base, scheduledStart: isoOf(rangeStart), scheduledEnd: isoOf(rangeEnd) })
      return { entries, skipped }
    }

    const schedule = yield* scheduleOf(row, record, strategy, (column, reason) =>
      skipped.push(skip(`${record}: ${column}`, reason)))
    if (typeof schedule === "string") {
      return none(schedule)
    }

    const from = rangeStart ?? now - schedule.durationSeconds * 1000
    let first: Span | undefined
    for (const series of schedule.series) {
      const window = firstWindow(from, zone, schedule, series)
      const next = window === undefined ? undefined : nextOccurrence(window, series, -1, now, zone)
      const seriesKey = series.suffix === null ? key : `${key}/${series.suffix}`
      if (next === undefined || (rangeEnd !== null && next.start > rangeEnd)) {
        skipped.push(
          skip(`${record} (${series.suffix ?? "daily"})`, "its windows are over: only windows to come are imported")
        )
        continue
      }
      if ((series.monthDay ?? 0) > 28) {
        skipped.push(skip(
          `${record} (${series.suffix})`,
          `in a month without day ${series.monthDay} it falls on the month's last day here; Kuma skipped such months`
        ))
      }
      first ??= next
      add({
        key: seriesKey,
        ...base,
        scheduledStart: isoOf(next.start),
        scheduledEnd: isoOf(next.end),
        recurrence: {
          frequency: series.frequency,
          interval: series.interval,
          ...(rangeEnd === null ? {} : { until: isoOf(rangeEnd) })
        }
      })
    }
    if (first !== undefined) {
      const local = wallTimeAt(first.start, zone)
      skipped.push(skip(
        `${record}: timezone`,
        `its windows repeat in the organization's time zone here, Kuma's in ${zone}: later windows keep the first one's ` +
          `clock time (${pad(local.hour)}:${pad(local.minute)} in ${zone}, ${
            isoOf(first.start)
          }) in the organization's ` +
          `zone, so set that to ${zone}, or they move by an hour when one of the two changes to or from summer time`
      ))
    }
    return { entries, skipped }
  })
