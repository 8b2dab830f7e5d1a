/**
 * Times are shown in the operator's own zone (the browser's), since that is the clock they read
 * at 3 a.m.; hovering one shows it in the status page's zone (the organization's `timezone`),
 * which is what the public reads and what maintenance windows are planned in.
 */
import { createContext } from "preact"
import { useContext } from "preact/hooks"

/** The browser's zone: the one every time is written in. */
export const operatorTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone

/** The organization's zone, once the dashboard has read it; the operator's own until then. */
export const PageTimeZoneContext = createContext<string>(operatorTimeZone)

export const usePageTimeZone = (): string => useContext(PageTimeZoneContext)

const operatorFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const formatsByZone = new Map<string, Intl.DateTimeFormat | null>()

/**
 * The format for `zone`; null for a zone this browser does not know (the server's list may be
 * newer than an old browser's), which then shows no hover rather than failing the screen.
 */
const formatIn = (zone: string): Intl.DateTimeFormat | null => {
  if (!formatsByZone.has(zone)) {
    let format: Intl.DateTimeFormat | null
    try {
      format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "long", timeZone: zone })
    } catch {
      format = null
    }
    formatsByZone.set(zone, format)
  }
  return formatsByZone.get(zone)!
}

/** An instant as the operator reads it. */
export const inOperatorZone = (date: Date): string => operatorFormat.format(date)

/** The hover text: the instant in the page's zone, named ("30 Nov 2026, 03:15:00 CET (status page: Europe/Berlin)"). */
export const inPageZone = (date: Date, pageZone: string): string | undefined => {
  const format = formatIn(pageZone)
  return format === null ? undefined : `${format.format(date)} (status page: ${pageZone})`
}
