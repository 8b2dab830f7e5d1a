/**
 * The public renderers in each language and under a page's own address: `<html lang>`, the
 * catalogue's words (none of English left in another language), dates in the page's zone by the
 * language's conventions, links under the page's base that keep a reader's chosen language, the
 * footer's language and operator links, the password form of a protected page, and the badge,
 * widget and feeds. English at the site's root is covered by the existing page tests.
 */
import { createHash } from "node:crypto"

import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"

import { Component, ComponentId } from "../../src/domain/Component.js"
import { ComponentGroup, ComponentGroupId } from "../../src/domain/ComponentGroup.js"
import { IncidentUpdate, PublicIncident, PublicIncidentDetail } from "../../src/domain/Incident.js"
import { type Locale, locales } from "../../src/domain/Locale.js"
import { Maintenance, MaintenanceId } from "../../src/domain/Maintenance.js"
import { Organization, OrganizationId } from "../../src/domain/Organization.js"
import type { RegionResponseTimes } from "../../src/domain/ResponseTimes.js"
import { messagesFor } from "../../src/i18n/Messages.js"
import { en } from "../../src/i18n/messages/en.js"
import { statusBadge } from "../../src/public/render/Badge.js"
import { atomFeed, rssFeed } from "../../src/public/render/Feeds.js"
import { html } from "../../src/public/render/Html.js"
import type { RenderedPage } from "../../src/public/render/Layout.js"
import type { PageRender } from "../../src/public/render/PageRender.js"
import { href } from "../../src/public/render/PageRender.js"
import {
  accessPage,
  confirmSubscriptionForm,
  historyPage,
  incidentPage,
  maintenancePage,
  messagePage,
  preferencesPage,
  statusPage,
  type StatusSections,
  unsubscribeForm
} from "../../src/public/render/Pages.js"
import { responseTimeChartRenderer } from "../../src/public/render/ResponseTimeChart.js"
import { uptimeBarRenderer } from "../../src/public/render/UptimeBar.js"
import { widget } from "../../src/public/render/Widget.js"
import { assemble, type PublicState } from "../../src/public/state/PublicStatus.js"
import type { RecentResponseTimes } from "../../src/services/monitoring/ResponseTimes.js"

const hour = 3_600_000
const day = 24 * hour
// 5 March 2026, 22:00 UTC: 23:00 in Berlin (CET, "MEZ" in German).
const at = Date.UTC(2026, 2, 5, 22, 0)
const utc = (millis: number) => DateTime.makeUnsafe(millis)

/** API (in group Core) and Search; an open incident on API, a resolved one, a window on API. */
const state: PublicState = (() => {
  const fields = {
    description: "",
    displayOrder: 0,
    isPublic: true,
    updatedAt: utc(at),
    createdAt: utc(at - 400 * day)
  }
  const open = new PublicIncidentDetail({
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
  const resolved = new PublicIncidentDetail({
    id: "inc_0",
    title: "Slow search",
    status: "resolved",
    severity: "minor",
    message: "Slow.",
    componentIds: ["search"],
    createdAt: utc(at - 3 * day),
    updatedAt: utc(at - 2 * day),
    resolvedAt: utc(at - 2 * day),
    updates: [
      new IncidentUpdate({ id: "upd_0", status: "resolved", message: "Fixed.", createdAt: utc(at - 2 * day) })
    ],
    postmortem: { body: "## Cause\n\nAn index.", publishedAt: utc(at - day) }
  })
  const bar = ({ postmortem: _p, updates: _u, ...rest }: PublicIncidentDetail) => new PublicIncident(rest)
  return assemble({
    components: [
      new Component({ ...fields, id: ComponentId.make("api"), name: "API", status: "degraded", groupId: "core" }),
      new Component({ ...fields, id: ComponentId.make("search"), name: "Search", status: "operational", groupId: null })
    ],
    groups: [new ComponentGroup({ ...fields, id: ComponentGroupId.make("core"), name: "Core" })],
    incidents: { details: [open, resolved], complete: true, bars: [bar(open), bar(resolved)] },
    windows: [
      new Maintenance({
        id: MaintenanceId.make("mnt_1"),
        title: "Network upgrade",
        description: "New switches.",
        status: "scheduled",
        scheduledStart: utc(at + day),
        scheduledEnd: utc(at + day + 2 * hour),
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
        timezone: "Europe/Berlin",
        maintenanceReminderHours: 24,
        createdAt: utc(at - 400 * day),
        updatedAt: utc(at)
      })
    ),
    pages: []
  })
})()

const pageIn = (locale: Locale, overrides: Partial<PageRender> = {}): PageRender => ({
  state,
  base: "/p/kunden",
  locale,
  languages: [...locales],
  linkLocale: locale,
  description: "",
  footerLinks: [],
  ...overrides
})

const recent: RecentResponseTimes = {
  from: at - 23 * hour,
  now: at,
  monitored: new Set(["api"]),
  regions: new Map([["api", [
    {
      region: "eu-west",
      points: [{ at: utc(at - hour), p95Ms: 120, count: 60 }, { at: utc(at), p95Ms: 95, count: 60 }]
    } as unknown as RegionResponseTimes
  ]]])
}

/** Bars and charts drawn as PublicPages draws them, in the page's language. */
const sectionsIn = (render: PageRender): StatusSections => {
  const bars = uptimeBarRenderer()(
    [{
      componentId: "api",
      bucketStart: new Date(Math.floor(at / day) * day - day),
      observedSeconds: 86_400,
      downtimeSeconds: 864
    }],
    state.barIncidents,
    at,
    render.locale
  )
  const chart = responseTimeChartRenderer()(recent, state.organization.timezone, render.locale)
  const bar = (id: string) => {
    const component = state.components.find((candidate) => candidate.id === id)!
    return { ...component, createdAt: state.componentCreatedAt.get(id) }
  }
  return {
    component: (component) => html`${bars.component(bar(component.id))}${chart(component)}`,
    group: (group) => bars.group({ id: group.id, name: group.name, components: group.componentIds.map(bar) })
  }
}

/** Every page a reader of `render` may see. */
const everyPage = (render: PageRender): Record<string, RenderedPage> => {
  const m = messagesFor(render.locale)
  return {
    status: statusPage(render, sectionsIn(render), { _tag: "Empty" }),
    incident: incidentPage(render, state.incidents.find((incident) => incident.id === "inc_1")!),
    postmortem: incidentPage(render, state.incidents.find((incident) => incident.id === "inc_0")!),
    maintenance: maintenancePage(render, state.maintenance[0]!),
    history: historyPage(render, 2, 3, state.incidents),
    preferences: preferencesPage(render, {
      email: "a@example.test",
      token: "tok",
      componentIds: ["api"],
      notice: { _tag: "Saved", message: m.forms.savedEvery }
    }),
    confirm: messagePage(render, {
      title: m.forms.confirmTitle,
      message: m.forms.confirm,
      ok: true,
      extra: confirmSubscriptionForm(render, "tok")
    }),
    unsubscribe: messagePage(render, {
      title: m.forms.unsubscribeTitle,
      message: m.forms.unsubscribeAsk("a@example.test"),
      ok: true,
      extra: unsubscribeForm(render, "a@example.test", "tok")
    }),
    access: accessPage(render, { next: `${render.base}/`, error: "wrongPassword" })
  }
}

/** English's own sentences and labels: the ones a translation must replace. */
const englishWords = (locale: Locale): Array<string> => {
  const leaves = (node: object, other: object): Array<string> =>
    Object.entries(node).flatMap(([key, value]) => {
      const translated = (other as Record<string, unknown>)[key]
      if (typeof value === "string") return value !== translated && value.trim().length > 3 ? [value.trim()] : []
      return typeof value === "object" && value !== null ? leaves(value, translated as object) : []
    })
  const m = messagesFor(locale)
  return [
    ...leaves(en.status, m.status),
    ...leaves(en.layout, m.layout),
    ...leaves(en.page, m.page),
    ...leaves(en.subscribe, m.subscribe),
    ...leaves(en.preferences, m.preferences),
    ...leaves(en.access, m.access),
    ...leaves(en.responseTimes, m.responseTimes),
    en.uptime.today,
    en.uptime.noData,
    en.uptime.barLabel("API"),
    en.uptime.daysAgo(90)
  ]
}

const styleOf = (html: string) => /<style>([\s\S]*?)<\/style>/.exec(html)![1]!

describe.each([...locales])("the pages in %s", (locale) => {
  const render = pageIn(locale)
  const pages = everyPage(render)
  const m = messagesFor(locale)

  it("are marked with their language and say everything in it", () => {
    for (const [name, page] of Object.entries(pages)) {
      expect(page.html, name).toContain(`<html lang="${locale}">`)
      if (locale === "en") continue
      for (const words of englishWords(locale)) {
        expect(page.html, `${name}: ${words}`).not.toContain(`>${words}<`)
      }
    }
    expect(pages.status!.html).toContain(`<h1 id="overall">${m.status.overall.degraded}</h1>`)
    expect(pages.status!.html).toContain(m.uptime.barLabel("API"))
    expect(pages.status!.html).toContain(m.responseTimes.figcaption)
    expect(pages.history!.html).toContain(m.page.pageOf(2, 3))
    expect(pages.postmortem!.html).toContain(m.page.postmortem)
  })

  it("link to the page's own addresses, keeping the reader's language", () => {
    for (const [name, page] of Object.entries(pages)) {
      const links = [...page.html.matchAll(/(?:href|action)="(\/[^"]*)"/g)].map((match) => match[1]!)
      expect(links.length, name).toBeGreaterThan(0)
      for (const link of links) {
        expect(link, name).toMatch(/^\/p\/kunden\//)
        // The JSON API has no words; the language links name their own language.
        if (link !== "/p/kunden/api/v1/status" && !link.startsWith("/p/kunden/?lang=")) {
          expect(link.replace(/&amp;/g, "&"), name).toMatch(new RegExp(`[?&]lang=${locale}$`))
        }
      }
    }
    expect(pages.status!.html).toContain(`action="/p/kunden/subscribe?lang=${locale}"`)
    expect(pages.confirm!.html).toContain(`action="/p/kunden/subscribe/verify?lang=${locale}"`)
    expect(pages.unsubscribe!.html).toContain(`action="/p/kunden/unsubscribe?lang=${locale}"`)
    expect(pages.preferences!.html).toContain(`action="/p/kunden/subscription?lang=${locale}"`)
    expect(pages.history!.html).toContain(`href="/p/kunden/history/3?lang=${locale}" rel="next"`)
  })

  it("link each other language of the page by its own name, and no other", () => {
    const footer = /<footer>[\s\S]*<\/footer>/.exec(pages.status!.html)![0]
    for (const other of locales) {
      const link = `<a href="/p/kunden/?lang=${other}" hreflang="${other}" lang="${other}">${
        messagesFor(other).languageName
      }</a>`
      if (other === locale) expect(footer).not.toContain(link)
      else expect(footer).toContain(link)
    }
  })

  it("write times in the page's zone by the language's conventions, in <time> elements", () => {
    const times = [...pages.incident!.html.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)]
    expect(times.map((time) => time[1])).toEqual([
      new Date(at - 2 * hour).toISOString(),
      new Date(at).toISOString()
    ])
    const shown = new Intl.DateTimeFormat(locale === "en" ? "en-GB" : locale, {
      timeZone: "Europe/Berlin",
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZoneName: "short"
    }).format(at)
    expect(times[1]![2]).toBe(shown)
    expect(shown).toMatch(/23:00/)
  })

  it("allow their stylesheet by its hash", () => {
    for (const [name, page] of Object.entries(pages)) {
      const hash = createHash("sha256").update(styleOf(page.html)).digest("base64")
      expect(page.contentSecurityPolicy, name).toContain(`style-src 'sha256-${hash}'`)
    }
  })
})

describe("a page's own features", () => {
  it("shows its description under the banner and its footer links after ours", () => {
    const render = pageIn("de", {
      description: "Dienste für <Kunden>",
      footerLinks: [{ label: "Impressum", url: "https://acme.test/impressum?a=1&b=2" }]
    })
    const html = statusPage(render, sectionsIn(render), { _tag: "Empty" }).html
    expect(html).toContain("</section>\n<p class=\"description\">Dienste für &lt;Kunden&gt;</p>\n")
    expect(html).toMatch(
      /<footer><p>Updates verfolgen: .*JSON-API<\/a><\/p><nav aria-label="Links"><p><a href="https:\/\/acme.test\/impressum\?a=1&amp;b=2">Impressum<\/a><\/p><\/nav>/
    )
  })

  it("at the site's root in one language, links carry neither a base nor a language, and no language is offered", () => {
    const render = pageIn("en", { base: "", languages: ["en"], linkLocale: undefined })
    for (const [name, page] of Object.entries(everyPage(render))) {
      expect(page.html, name).not.toMatch(/[?&]lang=/)
      expect(page.html, name).not.toContain("/p/")
      expect(page.html, name).not.toContain("<nav aria-label=\"Languages\">")
      expect(page.html, name).toContain("<a href=\"/history\">Incident history</a>")
    }
    expect(href(render, "/incidents/x")).toBe("/incidents/x")
    expect(href(pageIn("fr"), "/subscription?email=a")).toBe("/p/kunden/subscription?email=a&lang=fr")
  })

  it("a reader who did not choose a language gets links without one", () => {
    const html = statusPage(pageIn("ja", { linkLocale: undefined }), sectionsIn(pageIn("ja")), { _tag: "Empty" }).html
    expect(html).toContain("href=\"/p/kunden/history\"")
    expect(html).not.toContain("?lang=ja")
    // The language links still name theirs.
    expect(html).toContain("href=\"/p/kunden/?lang=en\"")
  })

  it("the password form of a protected page posts the password and where to return", () => {
    const render = pageIn("fr", { base: "/p/interne", linkLocale: undefined })
    const fresh = accessPage(render, { next: "/p/interne/history" }).html
    expect(fresh).toContain(
      "<form class=\"subscribe\" method=\"post\" action=\"/p/interne/access\"><input type=\"hidden\" name=\"next\" value=\"/p/interne/history\">"
    )
    expect(fresh).toContain(
      "<label for=\"password\">Mot de passe</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>"
    )
    expect(fresh).not.toContain("role=\"alert\"")
    const wrong = accessPage(render, { next: "/p/interne/", error: "wrongPassword" }).html
    expect(wrong).toContain(`role="alert" id="password-error">${messagesFor("fr").access.wrongPassword}</p>`)
    expect(wrong).toContain("aria-invalid=\"true\" aria-describedby=\"password-error\"")
    const tooMany = accessPage(render, { next: "/p/interne/", error: "tooManyTries" }).html
    expect(tooMany).toContain(messagesFor("fr").access.tooManyTries)
    expect(tooMany).not.toContain("aria-invalid=\"true\"")
    expect(styleOf(fresh)).toContain("input[type=password]")
  })

  it("a group's summary counts its components by the language's plural rules", () => {
    const render = pageIn("de")
    expect(statusPage(render, sectionsIn(render), { _tag: "Empty" }).html).toContain(
      "<summary>1 Komponente<span class=\"vh\"> von Core</span></summary>"
    )
  })
})

describe("badge, widget and feeds", () => {
  it("the badge says the status in the page's language, wide enough for wide characters", () => {
    expect(statusBadge("API", "operational", "en")).toContain("aria-label=\"API: operational\"")
    expect(statusBadge("API", "major_outage", "de")).toContain(">schwerer Ausfall</text>")
    const width = (svg: string) => Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1])
    const ja = statusBadge("API", "operational", "ja")
    expect(ja).toContain(">正常稼働</text>")
    // Four ideographs take about the room of eight Latin letters.
    expect(width(ja)).toBeGreaterThanOrEqual(width(statusBadge("API", "operational", "en")) - 20)
    expect(width(ja)).toBeGreaterThan(Math.round(4 * 6.6) + 12 + Math.round(3 * 6.6) + 12)
  })

  it("the widget describes the state in the page's language and links under the page's address", () => {
    const parsed = JSON.parse(widget(state, "https://status.acme.test/p/clients", "fr"))
    expect(parsed.description).toBe("Performances dégradées")
    expect(parsed.components.map((component: { description: string }) => component.description)).toEqual([
      "Performances dégradées",
      "Opérationnel"
    ])
    expect(parsed.url).toBe("https://status.acme.test/p/clients")
    expect(parsed.activeIncidents[0].url).toBe("https://status.acme.test/p/clients/incidents/inc_1")
    expect(parsed.maintenance[0].url).toBe("https://status.acme.test/p/clients/maintenance/mnt_1")
  })

  it("the feeds use the page's language for their own words and keep dates in their formats", () => {
    const source = {
      title: "Acme",
      publicUrl: "https://status.acme.test/p/kunden",
      locale: "de" as const,
      incidents: state.incidents,
      maintenance: state.maintenance
    }
    const rss = rssFeed(source, utc(at))
    expect(rss).toContain("<description>Vorfälle und Wartungen von Acme</description>\n<language>de</language>")
    expect(rss).toContain("<title>Database failover (Ursache erkannt)</title>")
    expect(rss).toContain("<description>Ursache erkannt: Failing over.</description>")
    expect(rss).toContain("<link>https://status.acme.test/p/kunden/incidents/inc_1</link>")
    expect(rss).toContain("&lt;h2&gt;Nachbetrachtung&lt;/h2&gt;")
    const atom = atomFeed(source, utc(at))
    expect(atom).toContain("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"de\">")
    expect(atom).toContain("<title>Wartung: Network upgrade (geplant)</title>")
    expect(atom).toContain(
      `<summary>${new Date(at + day).toISOString()} bis ${
        new Date(at + day + 2 * hour).toISOString()
      }: New switches.</summary>`
    )
    const english = rssFeed({ ...source, locale: "en" }, utc(at))
    expect(english).toContain("<title>Database failover (identified)</title>")
    expect(english).toContain("<title>Maintenance: Network upgrade (scheduled)</title>")
    expect(english).toContain("<description>Incidents and maintenance of Acme</description>")
  })
})
