/**
 * The public page, its uptime bars, the feeds and subscriber mail rendered at fixed instants across
 * a year, whatever the machine's date: the 15th of each month, both sides of each daylight-saving
 * change of Europe/London and America/New_York, 29 February 2028 and the turn of the year, in the
 * default zone (UTC) and in those two. What a reader sees is checked against dates worked out here
 * without Intl: day labels and times are read back as a reader would (a month by its English
 * prefix, so "Sept" is September), and offsets follow the zones' rules. A break that depends on the
 * month or the season fails here the day it is written, not on the day the calendar reaches it.
 */
import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"

import { Component, ComponentId } from "../../src/domain/Component.js"
import { ComponentGroup, ComponentGroupId } from "../../src/domain/ComponentGroup.js"
import { IncidentUpdate, PublicIncident, PublicIncidentDetail } from "../../src/domain/Incident.js"
import { Maintenance, MaintenanceId } from "../../src/domain/Maintenance.js"
import type { IncidentEvent, MaintenanceEvent } from "../../src/domain/NotificationEvent.js"
import { Organization, OrganizationId } from "../../src/domain/Organization.js"
import { uptimeBarDays } from "../../src/domain/Uptime.js"
import { atomFeed, rssFeed } from "../../src/public/render/Feeds.js"
import type { PageRender } from "../../src/public/render/PageRender.js"
import {
  historyPage,
  incidentPage,
  maintenancePage,
  statusPage,
  type StatusSections
} from "../../src/public/render/Pages.js"
import { type DailyBucket, uptimeBarRenderer } from "../../src/public/render/UptimeBar.js"
import { assemble, type PublicState } from "../../src/public/state/PublicStatus.js"
import { notificationMail } from "../../src/services/notifications/mail/SubscriberMail.js"

// The machine's own zone, far from UTC with a daylight-saving time of its own, so that code reading
// the machine's zone instead of UTC or the organization's breaks here too (this file's process only).
process.env.TZ = "Pacific/Chatham"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

// Europe/London: GMT to BST at 01:00 UTC on 29 March 2026, back on 25 October. America/New_York:
// EST to EDT at 07:00 UTC on 8 March 2026, back at 06:00 UTC on 1 November.
const instants = [
  ...Array.from({ length: 12 }, (_, month) => Date.UTC(2026, month, 15, 12, 34)),
  Date.UTC(2026, 2, 29, 0, 59),
  Date.UTC(2026, 2, 29, 1, 0),
  Date.UTC(2026, 9, 25, 0, 59),
  Date.UTC(2026, 9, 25, 1, 0),
  Date.UTC(2026, 2, 8, 6, 59),
  Date.UTC(2026, 2, 8, 7, 0),
  Date.UTC(2026, 10, 1, 5, 59),
  Date.UTC(2026, 10, 1, 6, 0),
  Date.UTC(2028, 1, 29, 12, 0),
  Date.UTC(2026, 11, 31, 23, 59),
  Date.UTC(2027, 0, 1, 0, 0)
]

/** The UTC midnight of the `n`-th (1-based; -1 the last) Sunday of `month` (0-based). */
const sunday = (year: number, month: number, n: number) => {
  if (n < 0) {
    const last = Date.UTC(year, month + 1, 0)
    return last - new Date(last).getUTCDay() * day
  }
  const first = Date.UTC(year, month, 1)
  return first + ((7 - new Date(first).getUTCDay()) % 7) * day + (n - 1) * 7 * day
}

/** Minutes east of UTC at `at`, by each zone's rule (the EU's since 1996, the US's since 2007). */
const zones: Record<string, (at: number) => number> = {
  UTC: () => 0,
  "Europe/London": (at) => {
    const year = new Date(at).getUTCFullYear()
    return at >= sunday(year, 2, -1) + hour && at < sunday(year, 9, -1) + hour ? 60 : 0
  },
  "America/New_York": (at) => {
    const year = new Date(at).getUTCFullYear()
    return at >= sunday(year, 2, 2) + 7 * hour && at < sunday(year, 10, 1) + 6 * hour ? -240 : -300
  }
}

const months = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]
/** The month a reader takes a name for: "Sep", "Sept" and "September" are all September. */
const monthOf = (name: string) => {
  const month = name.length >= 3 ? months.findIndex((full) => full.startsWith(name)) : -1
  if (month < 0) throw new Error(`not a month: ${name}`)
  return month
}

/** The UTC day a bar label such as "1 Sept 2026" names. */
const readDay = (label: string) => {
  const match = /^(\d{1,2}) ([A-Za-z]+)\.? (\d{4})$/.exec(label)
  if (match === null) throw new Error(`not a day: ${label}`)
  return Date.UTC(Number(match[3]), monthOf(match[2]!), Number(match[1]))
}

/** Minutes east of UTC of a zone name a reader sees: an abbreviation, or GMT±h[:mm]. */
const offsetOfName = (name: string) => {
  const gmt = /^GMT([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name)
  if (gmt !== null) return (gmt[1] === "-" ? -1 : 1) * (Number(gmt[2]) * 60 + Number(gmt[3] ?? 0))
  const known = ({ UTC: 0, GMT: 0, BST: 60, EST: -300, EDT: -240 } as Record<string, number>)[name]
  if (known === undefined) throw new Error(`not a zone name: ${name}`)
  return known
}

/** The instant a time such as "29 Mar 2026, 02:00 BST" names, and the offset its zone name says. */
const readTime = (text: string) => {
  const match = /^(\d{1,2}) ([A-Za-z]+)\.? (\d{4}), (\d{2}):(\d{2}) (\S+)$/.exec(text)
  if (match === null) throw new Error(`not a time: ${text}`)
  const [, date, month, year, hours, minutes, zone] = match
  const offset = offsetOfName(zone!)
  const wall = Date.UTC(Number(year), monthOf(month!), Number(date), Number(hours), Number(minutes))
  return { at: wall - offset * minute, offset }
}

const pad = (n: number) => String(n).padStart(2, "0")
/** How incident mail writes an instant: `2026-09-15 12:34 UTC`. */
const utcText = (at: number) => {
  const d = new Date(at)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${
    pad(d.getUTCMinutes())
  } UTC`
}

const iso = (at: number) => new Date(at).toISOString()
const utc = (at: number) => DateTime.makeUnsafe(at)

/**
 * What the page shows at `at`, as the snapshot would hold it: API (in group Core) since long
 * before the bars' first day, Search since 40 days; an incident on API opened two hours before
 * and updated at `at`; a maintenance window from `at` for two hours.
 */
const stateAt = (at: number, timezone: string): PublicState => {
  const fields = { description: "", displayOrder: 0, isPublic: true, updatedAt: utc(at) }
  const incident = new PublicIncidentDetail({
    id: "inc_1",
    title: "Database failover",
    status: "identified",
    severity: "major",
    message: "Replicas lag.",
    componentIds: ["api"],
    createdAt: utc(at - 2 * hour),
    updatedAt: utc(at),
    resolvedAt: null,
    updates: [new IncidentUpdate({ id: "upd_1", status: "identified", message: "Failing over.", createdAt: utc(at) })],
    postmortem: null
  })
  const { postmortem: _postmortem, updates: _updates, ...bar } = incident
  return assemble({
    components: [
      new Component({
        ...fields,
        id: ComponentId.make("api"),
        name: "API",
        status: "operational",
        groupId: "core",
        createdAt: utc(at - 400 * day)
      }),
      new Component({
        ...fields,
        id: ComponentId.make("search"),
        name: "Search",
        status: "operational",
        groupId: null,
        createdAt: utc(at - 40 * day)
      })
    ],
    groups: [new ComponentGroup({ ...fields, id: ComponentGroupId.make("core"), name: "Core", createdAt: utc(at) })],
    incidents: { details: [incident], complete: true, bars: [new PublicIncident(bar)] },
    windows: [
      new Maintenance({
        id: MaintenanceId.make("mnt_1"),
        title: "Network upgrade",
        description: "",
        status: "scheduled",
        scheduledStart: utc(at),
        scheduledEnd: utc(at + 2 * hour),
        componentIds: [ComponentId.make("api")],
        isPublic: true,
        recurrence: null,
        seriesId: null,
        occurrence: null,
        createdAt: utc(at - day),
        updatedAt: utc(at - day)
      })
    ],
    organization: Option.some(
      new Organization({
        id: OrganizationId.make("org"),
        name: "Acme",
        logoUrl: null,
        brandColor: "#2563eb",
        timezone,
        maintenanceReminderHours: 24,
        createdAt: utc(at - 400 * day),
        updatedAt: utc(at)
      })
    ),
    pages: []
  })
}

/** The default page in English, served at the site's root. */
const pageOf = (state: PublicState): PageRender => ({
  state,
  base: "",
  locale: "en",
  languages: ["en"],
  linkLocale: undefined,
  description: "",
  footerLinks: []
})

/** The status page at `at` with bars drawn as PublicPages draws them, from these daily buckets. */
const renderStatus = (state: PublicState, buckets: ReadonlyArray<DailyBucket>, at: number) => {
  const bars = uptimeBarRenderer()(buckets, state.barIncidents, at, "en")
  const barComponent = (id: string) => {
    const component = state.components.find((candidate) => candidate.id === id)!
    return { ...component, createdAt: state.componentCreatedAt.get(id) }
  }
  const sections: StatusSections = {
    component: (component) => bars.component(barComponent(component.id)),
    group: (group) => bars.group({ id: group.id, name: group.name, components: group.componentIds.map(barComponent) })
  }
  return statusPage(pageOf(state), sections, { _tag: "Empty" }).html
}

/** Each bar of a page by name: its cells' texts, oldest first, and its summary. */
const barsOf = (page: string) =>
  new Map(
    [...page.matchAll(
      /<ol class="bar" aria-label="Daily uptime of ([^,"]+)[^"]*">(.*?)<\/ol><p class="small">(.*?)<\/p>/g
    )]
      .map(([, name, cells, summary]) => [name!, {
        cells: [...cells!.matchAll(/<li(?: class=\w+)? tabindex=-1><span>([^<]*)<\/span>/g)].map((cell) => cell[1]!),
        summary: [...summary!.matchAll(/<span>([^<]*)<\/span>/g)].map((span) => span[1]!)
      }])
  )

/** Each `<time>` of a page: the instant it carries and the text it shows. */
const timesOf = (page: string) =>
  [...page.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)].map(([, datetime, text]) => ({
    at: Date.parse(datetime!),
    text: text!
  }))

/** A shown time, read back: the instant it carries, at the offset the zone has then. */
const expectShownIn = (zone: string, at: number, text: string) =>
  expect(readTime(text), text).toEqual({ at, offset: zones[zone]!(at) })

// RFC 822 names months by their own three letters, whatever the page writes ("Sept").
const rfc822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const tags = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, "g"))].map((match) => match[1]!)

describe.each(instants.map((at) => [iso(at), at] as const))("at %s", (_, at) => {
  const today = Math.floor(at / day) * day
  const searchSince = Math.floor((at - 40 * day) / day) * day
  const buckets: ReadonlyArray<DailyBucket> = [
    { componentId: "api", bucketStart: new Date(today - day), observedSeconds: 86_400, downtimeSeconds: 864 },
    { componentId: "api", bucketStart: new Date(today), observedSeconds: 600, downtimeSeconds: 0 },
    { componentId: "search", bucketStart: new Date(searchSince), observedSeconds: 600, downtimeSeconds: 0 }
  ]

  it("the bars show the 90 UTC days up to today, each day's uptime and incidents, and since when", () => {
    const page = renderStatus(stateAt(at, "UTC"), buckets, at)
    const bars = barsOf(page)
    expect([...bars.keys()]).toEqual(["Core", "API", "Search"])
    const days = Array.from({ length: uptimeBarDays }, (_, i) => today - (uptimeBarDays - 1 - i) * day)
    for (const [name, { cells }] of bars) {
      expect(cells.map((cell) => readDay(cell.split(": ")[0]!)), name).toEqual(days)
    }
    // The incident, opened two hours before `at`, is on every UTC day from then to today.
    const incidentDays = new Set([Math.floor((at - 2 * hour) / day) * day, today])
    const details = (name: string) => bars.get(name)!.cells.map((cell) => cell.slice(cell.indexOf(": ") + 2))
    expect(details("API")).toEqual(days.map((start) => {
      const uptime = start === today ? "100 % uptime" : start === today - day ? "99 % uptime" : "no data"
      return incidentDays.has(start) ? `${uptime}; incident: Database failover` : uptime
    }))
    expect(details("Search")).toEqual(
      days.map((start) =>
        start < searchSince ? "before this component existed" : start === searchSince ? "100 % uptime" : "no data"
      )
    )
    const [since] = /(?<=^100 % uptime since ).*/.exec(bars.get("Search")!.summary[1]!)!
    expect(readDay(since)).toBe(searchSince)
    expect(bars.get("API")!.summary).toEqual(["90 days ago", expect.stringMatching(/ % uptime over 90 days$/), "Today"])
  })

  it.each(Object.keys(zones))("the pages show times in %s with its name or offset at that moment", (zone) => {
    const state = stateAt(at, zone)
    const incident = state.incidents[0]!
    const pages = {
      status: renderStatus(state, buckets, at),
      incident: incidentPage(pageOf(state), incident).html,
      maintenance: maintenancePage(pageOf(state), state.maintenance[0]!).html,
      history: historyPage(pageOf(state), 1, 1, state.incidents).html
    }
    const expected = {
      // The incident's update, the window's start and end.
      status: [at, at, at + 2 * hour],
      // Opened, then its update.
      incident: [at - 2 * hour, at],
      maintenance: [at, at + 2 * hour],
      // The incident's update.
      history: [at]
    }
    for (const [name, page] of Object.entries(pages)) {
      const times = timesOf(page)
      expect(times.map((time) => time.at), name).toEqual(expected[name as keyof typeof expected])
      for (const time of times) expectShownIn(zone, time.at, time.text)
    }
  })

  it("the feeds date their items and themselves in RFC 822 (RSS) and RFC 3339 (Atom)", () => {
    const state = stateAt(at, "UTC")
    const source = {
      title: "Acme",
      publicUrl: "https://status.acme.test",
      locale: "en" as const,
      incidents: state.incidents,
      maintenance: state.maintenance
    }
    const rss = rssFeed(source, utc(at))
    const rssDates = [...tags(rss, "lastBuildDate"), ...tags(rss, "pubDate")]
    expect(rssDates).toHaveLength(3)
    for (const date of rssDates) {
      const [, weekday, dayOfMonth] = rfc822.exec(date) ?? []
      expect(date).toMatch(rfc822)
      expect(Date.parse(date)).toBe(at)
      expect([weekday, Number(dayOfMonth)], date).toEqual([
        weekdays[new Date(at).getUTCDay()],
        new Date(at).getUTCDate()
      ])
    }
    const atom = atomFeed(source, utc(at))
    const atomDates = tags(atom, "updated")
    expect(atomDates).toHaveLength(3)
    for (const date of atomDates) {
      expect(date).toMatch(rfc3339)
      expect(Date.parse(date)).toBe(at)
    }
  })

  it.each(Object.keys(zones))("a maintenance reminder names the window in %s; incident mail in UTC", (zone) => {
    const sender = { name: "Acme", url: "https://status.acme.test" }
    const window = {
      id: "mnt_1",
      title: "Network upgrade",
      status: "scheduled",
      scheduledStart: iso(at),
      scheduledEnd: iso(at + 2 * hour),
      componentIds: []
    } as const
    const reminder: MaintenanceEvent = {
      id: "evt_r",
      event: "maintenance.reminder",
      occurredAt: utc(at - day),
      componentIds: [],
      data: window
    }
    const mail = notificationMail({
      event: reminder,
      sender,
      email: "a@example.test",
      unsubscribeToken: "u",
      timeZone: zone
    })
    const [, starts] = /^\[Acme\] Reminder: scheduled maintenance Network upgrade starts (.*)$/.exec(mail.subject) ?? []
    expectShownIn(zone, at, starts!)
    expect(mail.text).toContain(`Starts: ${starts}\n`)
    const [, ends] = /^Ends: (.*)$/m.exec(mail.text) ?? []
    expectShownIn(zone, at + 2 * hour, ends!)
    expect(mail.html).toContain(`<th align="left">Ends</th><td>${ends}</td>`)

    const update: IncidentEvent = {
      id: "evt_u",
      event: "incident.updated",
      occurredAt: utc(at),
      componentIds: [],
      data: {
        id: "inc_1",
        title: "Database failover",
        status: "identified",
        severity: "major",
        componentIds: [],
        message: "Failing over."
      }
    }
    const incidentMail = notificationMail({
      event: update,
      sender,
      email: "a@example.test",
      unsubscribeToken: "u",
      timeZone: zone
    })
    expect(incidentMail.text).toContain(`Time: ${utcText(at)}\n`)
  })
})

describe("the changes of clock of Europe/London", () => {
  it("show on the page as the reader's clock reads on each side", () => {
    const shown = (at: number) => timesOf(renderStatus(stateAt(at, "Europe/London"), [], at))[0]!.text
    expect([Date.UTC(2026, 2, 29, 0, 59), Date.UTC(2026, 2, 29, 1, 0)].map(shown)).toEqual([
      "29 Mar 2026, 00:59 GMT",
      "29 Mar 2026, 02:00 BST"
    ])
    expect([Date.UTC(2026, 9, 25, 0, 59), Date.UTC(2026, 9, 25, 1, 0)].map(shown)).toEqual([
      "25 Oct 2026, 01:59 BST",
      "25 Oct 2026, 01:00 GMT"
    ])
  })
})
