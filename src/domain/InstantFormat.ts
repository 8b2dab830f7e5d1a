/**
 * How instants are written for people, in one place: the page and subscriber mail write them in
 * the organization's time zone with its abbreviation (`5 Mar 2026, 23:00 CET`), as readers plan
 * around their local time; chat messages, read by teams across zones, write UTC
 * (`2026-03-05 22:00 UTC`). Pure.
 */

const localFormats = new Map<string, Intl.DateTimeFormat>()

/** `at` in `timeZone`: `5 Mar 2026, 23:00 CET`. A formatter per zone is made once and kept. */
export const formatLocal = (at: Date, timeZone: string): string => {
  let format = localFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZoneName: "short"
    })
    localFormats.set(timeZone, format)
  }
  return format.format(at)
}

/** An ISO instant in `timeZone` (`formatLocal`); anything unparsable is shown as given. */
export const formatLocalIso = (iso: string, timeZone: string): string => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : formatLocal(date, timeZone)
}

/** `2026-05-01T22:00:00.000Z` -> `2026-05-01 22:00 UTC`; anything unparsable is shown as given. */
export const formatUtcIso = (iso: string): string => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`
}
