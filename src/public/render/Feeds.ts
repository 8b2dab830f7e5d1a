/**
 * RSS 2.0 and Atom feeds of recent public incidents and maintenance windows. Each item links to
 * its public page, carries a guid/id that never changes, and shows the latest update. An
 * incident with a published postmortem carries it too, rendered as on its page, as the item's
 * HTML content (RSS `content:encoded`, Atom `content type="html"`). The feeds' own words (the
 * states, "Maintenance", the channel's description) are in the page's language; dates stay in
 * the formats RSS and Atom prescribe. Each feed names its language (RSS `language`, Atom
 * `xml:lang`).
 */
import { DateTime } from "effect"

import type { PublicIncidentDetail } from "../../domain/Incident.js"
import type { Locale } from "../../domain/Locale.js"
import type { PublicMaintenance } from "../../domain/Maintenance.js"
import { type Messages, messagesFor } from "../../i18n/Messages.js"
import { feedItems } from "../state/PublicStatus.js"
import { escapeHtml } from "./Html.js"
import { renderMarkdown } from "./Markdown.js"

export interface FeedSource {
  readonly title: string
  /** The page's absolute address, which the items' links start with. */
  readonly publicUrl: string
  readonly locale: Locale
  readonly incidents: ReadonlyArray<PublicIncidentDetail>
  readonly maintenance: ReadonlyArray<PublicMaintenance>
}

interface Item {
  readonly id: string
  readonly title: string
  readonly link: string
  readonly summary: string
  /** HTML: the summary and the published postmortem, if any; made only for the items kept. */
  readonly content?: (() => string) | undefined
  readonly updated: DateTime.Utc
}

/** Escapes markup and drops the control characters XML 1.0 cannot carry at all. */
const xml = (text: string) =>
  text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")

/**
 * Rendered postmortems by body: the snapshot rebuilds both feeds after every public change, and a
 * postmortem may be 50,000 characters. A feed holds at most `feedItems`, so twice that many entries
 * cover both feeds; past that the cache starts again.
 */
const rendered = new Map<string, string>()
const renderedPostmortem = (body: string) => {
  let html = rendered.get(body)
  if (html === undefined) {
    if (rendered.size >= 2 * feedItems) rendered.clear()
    html = renderMarkdown(body, { headingOffset: 2 })
    rendered.set(body, html)
  }
  return html
}

const items = (source: FeedSource, m: Messages): ReadonlyArray<Item> =>
  [
    ...source.incidents.map((incident): Item => {
      const latest = incident.updates.at(-1)
      const summary = latest ? m.feeds.update(m.feeds.status[latest.status], latest.message) : incident.message
      return {
        id: `${source.publicUrl}/incidents/${incident.id}`,
        title: m.feeds.incidentTitle(incident.title, m.feeds.status[incident.status]),
        link: `${source.publicUrl}/incidents/${incident.id}`,
        summary,
        content: incident.postmortem
          ? () =>
            `<p>${escapeHtml(summary)}</p>\n<h2>${escapeHtml(m.feeds.postmortem)}</h2>\n${
              renderedPostmortem(incident.postmortem!.body)
            }`
          : undefined,
        updated: incident.updatedAt
      }
    }),
    ...source.maintenance.map((window): Item => {
      const times = m.feeds.window(DateTime.formatIso(window.scheduledStart), DateTime.formatIso(window.scheduledEnd))
      return {
        id: `${source.publicUrl}/maintenance/${window.id}`,
        title: m.feeds.maintenanceTitle(window.title, m.feeds.status[window.status]),
        link: `${source.publicUrl}/maintenance/${window.id}`,
        summary: window.description.length > 0 ? m.feeds.withDescription(times, window.description) : times,
        // Dated by its start, or by its end once completed.
        updated: window.status === "completed" ? window.scheduledEnd : window.scheduledStart
      }
    })
  ].toSorted((a, b) => b.updated.epochMilliseconds - a.updated.epochMilliseconds).slice(0, feedItems)

const rfc822 = (at: DateTime.Utc) => DateTime.toDateUtc(at).toUTCString()

export const rssFeed = (source: FeedSource, now: DateTime.Utc): string => {
  const m = messagesFor(source.locale)
  const entries = items(source, m)
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel>
<title>${xml(source.title)}</title>
<link>${xml(source.publicUrl)}</link>
<description>${xml(m.feeds.description(source.title))}</description>
<language>${source.locale}</language>
<atom:link href="${xml(`${source.publicUrl}/api/v1/status/rss`)}" rel="self" type="application/rss+xml"/>
<lastBuildDate>${rfc822(entries[0]?.updated ?? now)}</lastBuildDate>
${
    entries.map((item) =>
      `<item>
<title>${xml(item.title)}</title>
<link>${xml(item.link)}</link>
<guid isPermaLink="true">${xml(item.id)}</guid>
<pubDate>${rfc822(item.updated)}</pubDate>
<description>${xml(item.summary)}</description>${
        item.content === undefined ? "" : `\n<content:encoded>${xml(item.content())}</content:encoded>`
      }
</item>`
    ).join("\n")
  }
</channel>
</rss>
`
}

export const atomFeed = (source: FeedSource, now: DateTime.Utc): string => {
  const m = messagesFor(source.locale)
  const entries = items(source, m)
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${source.locale}">
<title>${xml(source.title)}</title>
<id>${xml(`${source.publicUrl}/api/v1/status/atom`)}</id>
<link rel="self" href="${xml(`${source.publicUrl}/api/v1/status/atom`)}"/>
<link rel="alternate" href="${xml(source.publicUrl)}"/>
<updated>${DateTime.formatIso(entries[0]?.updated ?? now)}</updated>
<author><name>${xml(source.title)}</name></author>
${
    entries.map((item) =>
      `<entry>
<title>${xml(item.title)}</title>
<id>${xml(item.id)}</id>
<link rel="alternate" href="${xml(item.link)}"/>
<updated>${DateTime.formatIso(item.updated)}</updated>
<summary>${xml(item.summary)}</summary>${
        item.content === undefined ? "" : `\n<content type="html">${xml(item.content())}</content>`
      }
</entry>`
    ).join("\n")
  }
</feed>
`
}
