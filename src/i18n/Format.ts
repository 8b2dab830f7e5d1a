/**
 * Instants, days, percentages and lists as the public side writes them in a language. English
 * keeps the formats the page has always had (domain/InstantFormat: `5 Mar 2026, 23:00 CET`); the
 * other languages take Intl's conventions for theirs, in the page's time zone. Formatters are
 * made once per language and zone and kept.
 */
import { formatLocal } from "../domain/InstantFormat.js"
import type { Locale } from "../domain/Locale.js"

const instantFormats = new Map<string, Intl.DateTimeFormat>()

/** `at` in `timeZone`, with the zone's name, as a reader of `locale` writes it. */
export const formatInstant = (at: Date, timeZone: string, locale: Locale): string => {
  if (locale === "en") return formatLocal(at, timeZone)
  const key = `${locale}|${timeZone}`
  let format = instantFormats.get(key)
  if (format === undefined) {
    // dateStyle/timeStyle refuse timeZoneName: the same fields, named one by one.
    format = new Intl.DateTimeFormat(locale, {
      timeZone,
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZoneName: "short"
    })
    instantFormats.set(key, format)
  }
  return format.format(at)
}

/** An ISO instant (`formatInstant`); anything unparsable is shown as given. */
export const formatInstantIso = (iso: string, timeZone: string, locale: Locale): string => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : formatInstant(date, timeZone, locale)
}

const dayFormats = new Map<Locale, Intl.DateTimeFormat>()

/** The UTC day of `at` (milliseconds): `1 Sept 2026` in English, `1. Sept. 2026` in German. */
export const formatDay = (at: number, locale: Locale): string => {
  let format = dayFormats.get(locale)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale === "en" ? "en-GB" : locale, {
      timeZone: "UTC",
      day: "numeric",
      month: "short",
      year: "numeric"
    })
    dayFormats.set(locale, format)
  }
  return format.format(at)
}

const percentFormats = new Map<Locale, Intl.NumberFormat>()

/** A percentage to two decimals at most: `99.5 %` in English, `99,5 %` in German, `99.5%` in Japanese. */
export const formatPercent = (percent: number, locale: Locale): string => {
  if (locale === "en") return `${Number(percent.toFixed(2))} %`
  let format = percentFormats.get(locale)
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 2 })
    percentFormats.set(locale, format)
  }
  return format.format(percent / 100)
}
