/**
 * The embeddable status badge: an SVG with a label and the status in words (colour is not the
 * only signal), for a whole page or one component, in the page's language.
 */
import type { ComponentStatus } from "../../domain/Component.js"
import type { Locale } from "../../domain/Locale.js"
import { messagesFor } from "../../i18n/Messages.js"
import { escapeHtml } from "./Html.js"

/** Badge backgrounds; white text on each has at least 4.5:1 contrast. */
const colour: Record<ComponentStatus, string> = {
  operational: "#1a7f37",
  degraded: "#9a6700",
  partial_outage: "#bc4c00",
  major_outage: "#cf222e",
  maintenance: "#0550ae"
}

/** Characters about twice as wide as a Latin letter: CJK ideographs, kana and full-width forms. */
const wide = /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/g

/** An estimate of the text's width at 11 px in the usual sans-serif fonts, enough for a badge. */
const textWidth = (text: string) => Math.round((text.length + (text.match(wide)?.length ?? 0)) * 6.6) + 12

export const statusBadge = (label: string, status: ComponentStatus, locale: Locale): string => {
  const value = messagesFor(locale).badge[status]
  const left = textWidth(label)
  const right = textWidth(value)
  const width = left + right
  const title = escapeHtml(`${label}: ${value}`)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${
      colour[status]
    }"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${left / 2}" y="14">${escapeHtml(label)}</text><text x="${left + right / 2}" y="14">${
      escapeHtml(value)
    }</text></g></svg>`
}
