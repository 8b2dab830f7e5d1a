/**
 * RSS 2.0 and Atom feeds of recent public incidents and maintenance windows. Each item links to
 * its public page, carries a guid/id that never changes, and shows the latest update.
 */
import { DateTime } from "effect"

import type { PublicIncidentDetail } from "../../domain/Incident.js"
import type { PublicMaintenance } from "../../domain/Maintenance.js"

export interface FeedSource {
  readonly title: string
  readonly publicUrl: string
  readonly incidents: ReadonlyArray<PublicIncidentDetail>
  readonly maintenance: ReadonlyArray<PublicMaintenance>
}

/** Items in a feed; the public snapshot holds at least this many most recently updated incidents. */
export const maxItems = 50

interface Item {
  readonly id: string
  readonly title: string
  readonly link: string
  readonly summary: string
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

const statusLabel = (status: string) => status.replace(/_/g, " ")

const items = (source: FeedSource): ReadonlyArray<Item> =>
  [
    ...source.incidents.map((incident): Item => {
      const latest = incident.updates.at(-1)
      return {
        id: `${source.publicUrl}/incidents/${incident.id}`,
        title: `${incident.title} (${statusLabel(incident.status)})`,
        link: `${source.publicUrl}/incidents/${incident.id}`,
        summary: latest ? `${statusLabel(latest.status)}: ${latest.message}` : incident.message,
        updated: incident.updatedAt
      }
    }),
    ...source.maintenance.map((window): Item => ({
      id: `${source.publicUrl}/maintenance/${window.id}`,
      title: `Maintenance: ${window.title} (${statusLabel(window.status)})`,
      link: `${source.publicUrl}/maintenance/${window.id}`,
      summary: `${DateTime.formatIso(window.scheduledStart)} to ${DateTime.formatIso(window.scheduledEnd)}` +
        (window.description.length > 0 ? `: ${window.description}` : ""),
      // Dated by its start, or by its end once completed.
      updated: window.status === "completed" ? window.scheduledEnd : window.scheduledStart
    }))
  ].toSorted((a, b) => b.updated.epochMillis - a.updated.epochMillis).slice(0, maxItems)

const rfc822 = (at: DateTime.Utc) => DateTime.toDateUtc(at).toUTCString()

export const rssFeed = (source: FeedSource, now: DateTime.Utc): string => {
  const entries = items(source)
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${xml(source.title)}</title>
<link>${xml(source.publicUrl)}</link>
<description>${xml(`Incidents and maintenance of ${source.title}`)}</description>
<atom:link href="${xml(`${source.publicUrl}/api/v1/status/rss`)}" rel="self" type="application/rss+xml"/>
<lastBuildDate>${rfc822(entries[0]?.updated ?? now)}</lastBuildDate>
${
    entries.map((item) =>
      `<item>
<title>${xml(item.title)}</title>
<link>${xml(item.link)}</link>
<guid isPermaLink="true">${xml(item.id)}</guid>
<pubDate>${rfc822(item.updated)}</pubDate>
<description>${xml(item.summary)}</description>
</item>`
    ).join("\n")
  }
</channel>
</rss>
`
}

export const atomFeed = (source: FeedSource, now: DateTime.Utc): string => {
  const entries = items(source)
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
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
<summary>${xml(item.summary)}</summary>
</entry>`
    ).join("\n")
  }
</feed>
`
}
