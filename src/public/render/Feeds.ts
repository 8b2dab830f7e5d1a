/**
 * RSS 2.0 and Atom feeds of recent public incidents and maintenance windows. Each item links to
 * its public page, carries a guid/id that never changes, and shows the latest update. An
 * incident with a published postmortem carries it too, rendered as on its page, as the item's
 * HTML content (RSS `content:encoded`, Atom `content type="html"`).
 */
import { DateTime } from "effect"

import type { PublicIncidentDetail } from "../../domain/Incident.js"
import type { PublicMaintenance } from "../../domain/Maintenance.js"
import { feedItems } from "../state/PublicStatus.js"
import { escapeHtml } from "./Html.js"
import { renderMarkdown } from "./Markdown.js"

export interface FeedSource {
  readonly title: string
  readonly publicUrl: string
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

const statusLabel = (status: string) => status.replace(/_/g, " ")

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

const items = (source: FeedSource): ReadonlyArray<Item> =>
  [
    ...source.incidents.map((incident): Item => {
      const latest = incident.updates.at(-1)
      const summary = latest ? `${statusLabel(latest.status)}: ${latest.message}` : incident.message
      return {
        id: `${source.publicUrl}/incidents/${incident.id}`,
        title: `${incident.title} (${statusLabel(incident.status)})`,
        link: `${source.publicUrl}/incidents/${incident.id}`,
        summary,
        content: incident.postmortem
          ? () => `<p>${escapeHtml(summary)}</p>\n<h2>Postmortem</h2>\n${renderedPostmortem(incident.postmortem!.body)}`
          : undefined,
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
  ].toSorted((a, b) => b.updated.epochMilliseconds - a.updated.epochMilliseconds).slice(0, feedItems)

const rfc822 = (at: DateTime.Utc) => DateTime.toDateUtc(at).toUTCString()

export const rssFeed = (source: FeedSource, now: DateTime.Utc): string => {
  const entries = items(source)
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">
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
<summary>${xml(item.summary)}</summary>${
        item.content === undefined ? "" : `\n<content type="html">${xml(item.content())}</content>`
      }
</entry>`
    ).join("\n")
  }
</feed>
`
}
