/**
 * The public pages, rendered from the public snapshot (no database query per view) and kept
 * encoded (bytes, gzip, ETag) until the snapshot changes. The uptime bars' daily buckets and the
 * response-time charts' hourly points are read from the rollups at most once a minute: uptime
 * moves every minute, not at every view.
 */
import { Clock, Context, Deferred, Effect, Layer, Option, Semaphore } from "effect"

import type { PublicComponent } from "../domain/Component.js"
import { AppConfig } from "../runtime/Config.js"
import type { RecentResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { Uptime } from "../services/monitoring/Uptime.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { encodeResponse } from "./PublicResponses.js"
import { statusBadge } from "./render/Badge.js"
import { html } from "./render/Html.js"
import type { RenderedPage } from "./render/Layout.js"
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
import { timeFormatter } from "./render/Times.js"
import { type BarComponent, barDays, type DailyBucket, uptimeBarRenderer } from "./render/UptimeBar.js"
import { widget } from "./render/Widget.js"
import type { Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"

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

/** The pages the request-listener fast path may answer, by request URL: their cache keys. */
const fastPathKeys = new Map([["/", "/"], ["/history", historyKey(1)], ["/widget.json", "/widget.json"], [
  "/badge.svg",
  badgeKey(undefined)
]])

export const htmlContentType = "text/html; charset=utf-8"

/** The headers of an HTML page: the common ones and its content security policy. */
export const pageHeaders = (page: RenderedPage) => ({
  ...commonHeaders,
  "content-security-policy": page.contentSecurityPolicy
})

const htmlPage = (page: RenderedPage) => encodePage(page.html, htmlContentType, pageHeaders(page))

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
     * The page at `key`, rendered once per snapshot and uptime read; null when there is none.
     * Readers asking while it renders share that render (after a change, a crowd of readers
     * would otherwise each render it). `render` may read the database (incidents older than
     * the snapshot holds); such pages are cached too, bounded by the incidents that exist.
     */
    const cached = <E>(
      key: string,
      render: (
        snapshot: Snapshot,
        read: NonNullable<typeof uptimeRead>
      ) => EncodedPage | null | Effect.Effect<EncodedPage | null, E>
    ) =>
      Effect.gen(function*() {
        const snapshot = yield* snapshots.get
        const read = yield* dailyBuckets
        if (cache?.snapshot !== snapshot || cache.uptimeAt !== read.at) {
          cache = { snapshot, uptimeAt: read.at, pages: new Map(), done: new Map() }
        }
        const { done, pages } = cache
        const found = pages.get(key)
        if (found) return yield* (Deferred.await(found) as Effect.Effect<EncodedPage | null, E>)
        const rendering = yield* Deferred.make<EncodedPage | null, unknown>()
        pages.set(key, rendering)
        const result = render(snapshot, read)
        // Uninterruptible: the readers waiting on it must get an answer.
        const outcome = yield* Effect.exit(
          Effect.uninterruptible(Effect.isEffect(result) ? result : Effect.succeed(result))
        )
        // Only pages that exist are kept (unknown ids cannot grow the cache); a failed render is tried again.
        if (outcome._tag === "Failure" || outcome.value === null) pages.delete(key)
        else done.set(key, outcome.value)
        yield* Deferred.done(rendering, outcome)
        return yield* outcome
      })

    /**
     * What the status page shows under each component (its uptime bar, then its response-time
     * chart) and under each group (the group's bar).
     */
    const sections = (snapshot: Snapshot, read: NonNullable<typeof uptimeRead>): StatusSections => {
      const { barIncidents, componentCreatedAt, components, organization } = snapshot.state
      const bars = drawBars(read.buckets, barIncidents, read.at)
      const chart = drawCharts(read.responseTimes, timeFormatter(organization.timezone), organization.timezone)
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

    return {
      /**
       * For the request-listener fast path: the rendered page for a request URL, if it is one of
       * the fast path's and is current (rendered from the latest snapshot and an uptime read
       * less than a minute old). Otherwise the Effect route renders it (or reads the uptime again).
       */
      cachedNow: (url: string): EncodedPage | undefined => {
        const key = fastPathKeys.get(url)
        if (key === undefined || cache === undefined || cache.snapshot !== snapshots.latest()) return undefined
        if (
          cache.uptimeAt !== uptimeRead?.at || clock.currentTimeMillisUnsafe() - cache.uptimeAt >= uptimeRefreshMillis
        ) return undefined
        return cache.done.get(key)
      },

      status: cached(
        "/",
        (snapshot, read) => htmlPage(statusPage(snapshot.state, sections(snapshot, read), { _tag: "Empty" }))
      ),

      /** The status page with the subscribe form's answer; not cached, it is one visitor's. */
      statusWithForm: (form: SubscribeForm) =>
        Effect.gen(function*() {
          const snapshot = yield* snapshots.get
          const read = yield* dailyBuckets
          return statusPage(snapshot.state, sections(snapshot, read), form)
        }),

      incident: (id: string) =>
        cached(`/incidents/${id}`, (snapshot) =>
          Effect.map(
            snapshots.incidentDetail(snapshot, id),
            Option.match({ onNone: () => null, onSome: (incident) => htmlPage(incidentPage(snapshot.state, incident)) })
          )),

      /** A public window that is not cancelled (those the feeds list); null for any other id. */
      // The snapshot holds every such window, so an unknown id costs no query.
      maintenance: (id: string) =>
        cached(`/maintenance/${id}`, ({ state }) => {
          const window = state.maintenance.find((candidate) => candidate.id === id)
          return window ? htmlPage(maintenancePage(state, window)) : null
        }),

      history: (page: number) =>
        cached(historyKey(page), (snapshot) =>
          Effect.gen(function*() {
            const pages = historyPages(yield* snapshots.incidentCount(snapshot))
            if (page > pages) return null
            const shown = yield* snapshots.incidentsPage(snapshot, {
              offset: (page - 1) * historyPageSize,
              limit: historyPageSize
            })
            return htmlPage(historyPage(snapshot.state, page, pages, shown))
          })),

      /** The badge of the whole page, or of one public component (null for any other id). */
      badge: (componentId: string | undefined) =>
        cached(badgeKey(componentId), ({ state }) => {
          if (componentId === undefined) {
            return encodePage(statusBadge(state.organization.name, state.summary.status), "image/svg+xml", embeddable)
          }
          const component = state.components.find((candidate) => candidate.id === componentId)
          return component
            ? encodePage(statusBadge(component.name, component.status), "image/svg+xml", embeddable)
            : null
        }),

      widget: cached(
        "/widget.json",
        ({ state }) => encodePage(widget(state, publicUrl), "application/json", embeddable)
      ),

      /** The snapshot's state, for the pages that answer forms and e-mail links. */
      state: Effect.map(snapshots.get, (snapshot) => snapshot.state)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([PublicSnapshot.layer, Uptime.layer, ResponseTimes.layer])
  )
}
