/**
 * The public pages, rendered from the public snapshot (no database query per view) and kept
 * encoded (bytes, gzip, ETag) until the snapshot changes. The uptime bars' daily buckets and the
 * response-time charts' hourly points are read from the rollups at most once a minute: uptime
 * moves every minute, not at every view.
 */
import { Clock, Context, Deferred, Effect, Layer, Option, Semaphore } from "effect"

import type { PublicComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { pageAddress } from "../domain/StatusPage.js"
import { AppConfig } from "../runtime/Config.js"
import type { RecentResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { Uptime } from "../services/monitoring/Uptime.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { encodeResponse } from "./PublicResponses.js"
import { statusBadge } from "./render/Badge.js"
import { html } from "./render/Html.js"
import type { RenderedPage } from "./render/Layout.js"
import type { PageRender } from "./render/PageRender.js"
import {
  historyPage,
  historyPages,
  historyPageSize,
  incidentPage,
  maintenancePage,
  statusPage,
  type StatusSections,
  type SubscribeForm
} from "./render/Pages.js"
import { responseTimeChartRenderer } from "./render/ResponseTimeChart.js"
import { type BarComponent, barDays, type DailyBucket, uptimeBarRenderer } from "./render/UptimeBar.js"
import { widget } from "./render/Widget.js"
import type { Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import type { Reading, Visit } from "./state/Site.js"
import { visiting } from "./state/Site.js"

/** A response ready to write, with headers of its own. */
export interface EncodedPage extends EncodedResponse {
  readonly headers: Readonly<Record<string, string>>
}

const uptimeRefreshMillis = 60_000

const noResponseTimes: RecentResponseTimes = { from: 0, now: 0, monitored: new Set(), regions: new Map() }

/** Sent with every public page. */
export const commonHeaders = { "x-content-type-options": "nosniff", "referrer-policy": "same-origin" }

export const encodePage = (text: string, contentType: string, headers: Record<string, string> = {}): EncodedPage => ({
  ...encodeResponse(text, contentType),
  headers: { ...commonHeaders, ...headers }
})

/** The cache key of a badge: the page's, or one component's (an empty id is a component that does not exist). */
const badgeKey = (componentId: string | undefined) =>
  componentId === undefined ? "/badge.svg" : `/badge.svg?component=${componentId}`
const historyKey = (page: number) => `/history?page=${page}`

/** The pages the request-listener fast path may answer, by request URL below the page's base: their cache keys. */
const fastPathKeys = new Map([["/", "/"], ["/history", historyKey(1)], ["/widget.json", "/widget.json"], [
  "/badge.svg",
  badgeKey(undefined)
]])

export const htmlContentType = "text/html; charset=utf-8"

/** What a renderer needs of a page as one request reads it. */
export const renderOf = ({ base, linkLocale, locale, page }: Reading): PageRender => ({
  state: page.state(),
  base,
  locale,
  languages: page.languages,
  linkLocale,
  description: page.description,
  footerLinks: page.footerLinks
})

/** What tells a page's renderings apart: the page, its address, and the language. */
const readingKey = ({ base, linkLocale, locale, page }: Reading) => `${page.id}|${base}|${locale}|${linkLocale ?? ""}|`

/** The headers of an HTML page: the common ones and its content security policy. */
export const pageHeaders = (page: RenderedPage) => ({
  ...commonHeaders,
  "content-security-policy": page.contentSecurityPolicy
})

/** A rendered page, encoded; one whose page offers several languages varies with `Accept-Language`. */
const htmlPage = (page: RenderedPage, reading: Reading) =>
  encodePage(page.html, htmlContentType, {
    ...pageHeaders(page),
    ...(reading.page.languages.length > 1 ? { vary: "Accept-Language" } : {})
  })

/** Embeds (badge, widget) are read from other sites' pages. */
const embeddable = { "access-control-allow-origin": "*" }

export class PublicPages extends Context.Service<PublicPages>()("PublicPages", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const uptime = yield* Uptime
    const responseTimes = yield* ResponseTimes
    const { publicUrl } = yield* AppConfig
    const uptimeLock = yield* Semaphore.make(1)
    const drawBars = uptimeBarRenderer()
    const drawCharts = responseTimeChartRenderer()
    // The service's Clock, read synchronously by the fast path (a TestClock in tests).
    const clock = yield* Clock.Clock

    let uptimeRead: {
      readonly at: number
      readonly buckets: ReadonlyArray<DailyBucket>
      readonly responseTimes: RecentResponseTimes
    } | undefined
    /** Rendered pages of one snapshot and one uptime read, by path: being rendered, and done. */
    let cache: {
      readonly snapshot: Snapshot
      readonly uptimeAt: number
      readonly pages: Map<string, Deferred.Deferred<EncodedPage | null, unknown>>
      readonly done: Map<string, EncodedPage>
    } | undefined

    /** Reads the daily buckets unless a minute has not passed; while the database is away, keeps the last ones. */
    const readBuckets = uptimeLock.withPermits(1)(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (uptimeRead && now - uptimeRead.at < uptimeRefreshMillis) return uptimeRead
      const buckets = yield* uptime.daily(barDays).pipe(
        Effect.catchTag("ServiceUnavailable", () => Effect.succeed(uptimeRead?.buckets ?? []))
      )
      const ids = (yield* snapshots.get).state.components.map((component) => component.id)
      const recent = yield* responseTimes.recent(ids).pipe(
        Effect.catchTag("ServiceUnavailable", () => Effect.succeed(uptimeRead?.responseTimes ?? noResponseTimes))
      )
      uptimeRead = { at: now, buckets, responseTimes: recent }
      return uptimeRead
    }))
    const scope = yield* Effect.scope
    let refreshing = false

    /**
     * The daily buckets, read again when a minute old. Like the snapshot, readers do not wait for
     * that read once there is one: they get the last buckets while it runs.
     */
    const dailyBuckets = Effect.gen(function*() {
      if (uptimeRead === undefined) return yield* readBuckets
      const now = yield* Clock.currentTimeMillis
      if (now - uptimeRead.at >= uptimeRefreshMillis && !refreshing) {
        refreshing = true
        yield* Effect.forkIn(Effect.ensuring(readBuckets, Effect.sync(() => (refreshing = false))), scope)
      }
      return uptimeRead
    })

    /**
     * The page at `key` of the page a visit reads, rendered once per snapshot and uptime read; null
     * when there is none (NotFound for a slug no page has). Readers asking while it renders share
     * that render (after a change, a crowd of readers would otherwise each render it). `render` may
     * read the database (incidents older than the snapshot holds); such pages are cached too,
     * bounded by the incidents that exist.
     */
    const cached = <E>(
      visit: Visit,
      key: string,
      render: (
        snapshot: Snapshot,
        read: NonNullable<typeof uptimeRead>,
        reading: Reading
      ) => EncodedPage | null | Effect.Effect<EncodedPage | null, E>
    ) =>
      Effect.gen(function*() {
        const snapshot = yield* snapshots.get
        const reading = visiting(snapshot.site, visit)
        if (reading === undefined) return yield* Effect.fail(NotFound.of("Status page", visit.slug ?? ""))
        const read = yield* dailyBuckets
        if (cache?.snapshot !== snapshot || cache.uptimeAt !== read.at) {
          cache = { snapshot, uptimeAt: read.at, pages: new Map(), done: new Map() }
        }
        const { done, pages } = cache
        const fullKey = readingKey(reading) + key
        const found = pages.get(fullKey)
        if (found) return yield* (Deferred.await(found) as Effect.Effect<EncodedPage | null, E>)
        const rendering = yield* Deferred.make<EncodedPage | null, unknown>()
        pages.set(fullKey, rendering)
        const result = render(snapshot, read, reading)
        // Uninterruptible: the readers waiting on it must get an answer.
        const outcome = yield* Effect.exit(
          Effect.uninterruptible(Effect.isEffect(result) ? result : Effect.succeed(result))
        )
        // Only pages that exist are kept (unknown ids cannot grow the cache); a failed render is tried again.
        if (outcome._tag === "Failure" || outcome.value === null) pages.delete(fullKey)
        else done.set(fullKey, outcome.value)
        yield* Deferred.done(rendering, outcome)
        return yield* outcome
      })

    /**
     * What the status page shows under each component (its uptime bar, then its response-time
     * chart) and under each group (the group's bar).
     */
    const sections = (reading: Reading, read: NonNullable<typeof uptimeRead>): StatusSections => {
      const { barIncidents, componentCreatedAt, components, organization } = reading.page.state()
      const bars = drawBars(read.buckets, barIncidents, read.at, reading.locale)
      const chart = drawCharts(read.responseTimes, organization.timezone, reading.locale)
      const byId = new Map(components.map((component) => [component.id, component]))
      const barComponent = ({ id, name, status }: PublicComponent): BarComponent => ({
        id,
        name,
        status,
        createdAt: componentCreatedAt.get(id)
      })
      return {
        component: (component) => html`${bars.component(barComponent(component))}${chart(component)}`,
        group: (group) =>
          bars.group({
            id: group.id,
            name: group.name,
            components: group.componentIds.flatMap((id) => {
              const component = byId.get(id)
              return component === undefined ? [] : [barComponent(component)]
            })
          })
      }
    }

    /** The page a visit reads now, for the pages that answer forms and links; NotFound for an unknown slug. */
    const readingNow = (visit: Visit) =>
      Effect.flatMap(snapshots.get, (snapshot) => {
        const reading = visiting(snapshot.site, visit)
        return reading === undefined
          ? Effect.fail(NotFound.of("Status page", visit.slug ?? ""))
          : Effect.succeed(reading)
      })

    return {
      /**
       * For the request-listener fast path: the rendered page for a request URL below the page's
       * base, if it is one of the fast path's and is current (rendered from the latest snapshot
       * and an uptime read less than a minute old), and the page is not protected. Otherwise the
       * Effect route renders it (or reads the uptime again).
       */
      cachedNow: (url: string, visit: Visit = {}): EncodedPage | undefined => {
        const key = fastPathKeys.get(url)
        if (key === undefined || cache === undefined || cache.snapshot !== snapshots.latest()) return undefined
        if (
          cache.uptimeAt !== uptimeRead?.at || clock.currentTimeMillisUnsafe() - cache.uptimeAt >= uptimeRefreshMillis
        ) return undefined
        const reading = visiting(cache.snapshot.site, visit)
        if (reading === undefined || reading.page.isProtected) return undefined
        return cache.done.get(readingKey(reading) + key)
      },

      status: (visit: Visit = {}) =>
        cached(
          visit,
          "/",
          (_, read, reading) =>
            htmlPage(statusPage(renderOf(reading), sections(reading, read), { _tag: "Empty" }), reading)
        ),

      /** The status page with the subscribe form's answer; not cached, it is one visitor's. */
      statusWithForm: (visit: Visit, form: SubscribeForm) =>
        Effect.gen(function*() {
          const reading = yield* readingNow(visit)
          const read = yield* dailyBuckets
          return statusPage(renderOf(reading), sections(reading, read), form)
        }),

      incident: (id: string, visit: Visit = {}) =>
        cached(visit, `/incidents/${id}`, (snapshot, _, reading) =>
          Effect.map(
            snapshots.incidentDetail(snapshot, id, reading.page),
            Option.match({
              onNone: () => null,
              onSome: (incident) => htmlPage(incidentPage(renderOf(reading), incident), reading)
            })
          )),

      /** A public window that is not cancelled (those the feeds list) the page shows; null for any other id. */
      // The snapshot holds every such window, so an unknown id costs no query.
      maintenance: (id: string, visit: Visit = {}) =>
        cached(visit, `/maintenance/${id}`, (_, __, reading) => {
          const window = reading.page.state().maintenance.find((candidate) => candidate.id === id)
          return window ? htmlPage(maintenancePage(renderOf(reading), window), reading) : null
        }),

      history: (page: number, visit: Visit = {}) =>
        cached(visit, historyKey(page), (snapshot, _, reading) =>
          Effect.gen(function*() {
            const pages = historyPages(yield* snapshots.incidentCount(snapshot, reading.page))
            if (page > pages) return null
            const shown = yield* snapshots.incidentsPage(snapshot, {
              offset: (page - 1) * historyPageSize,
              limit: historyPageSize
            }, reading.page)
            return htmlPage(historyPage(renderOf(reading), page, pages, shown), reading)
          })),

      /** The badge of the whole page, or of one of its components (null for any other id); in the page's language. */
      badge: (componentId: string | undefined, visit: Visit = {}) =>
        cached(visit, badgeKey(componentId), (_, __, { page }) => {
          const state = page.state()
          if (componentId === undefined) {
            return encodePage(
              statusBadge(state.organization.name, state.summary.status, page.locale),
              "image/svg+xml",
              embeddable
            )
          }
          const component = state.components.find((candidate) => candidate.id === componentId)
          return component
            ? encodePage(statusBadge(component.name, component.status, page.locale), "image/svg+xml", embeddable)
            : null
        }),

      widget: (visit: Visit = {}) =>
        cached(
          visit,
          "/widget.json",
          (_, __, { page }) =>
            encodePage(widget(page.state(), pageAddress(publicUrl, page), page.locale), "application/json", embeddable)
        ),

      /** The page a visit reads and how to render it, for the pages that answer forms and e-mail links. */
      reading: readingNow
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([PublicSnapshot.layer, Uptime.layer, ResponseTimes.layer])
  )
}
