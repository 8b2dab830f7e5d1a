/**
 * What the static mirror holds for the public state as it is now: the same bytes the service
 * answers for each public path (the same caches and renderers), and the list of every path the
 * mirror should hold, so the publisher can delete the rest.
 *
 * The snapshot holds the open and recent incidents; older ones are read from the database one by
 * one, so a publication reads only those a change touched and a full resynchronisation reads
 * them all. History pages the snapshot does not hold are read again only when incidents changed
 * (a new one shifts every page) or at a resynchronisation.
 */
import { Context, Effect, Layer, Option } from "effect"

import { PublicIncidentDetail } from "../domain/Incident.js"
import { defaultResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"
import { htmlContentType, PublicPages, renderOf } from "../public/PublicPages.js"
import { encodedJson, type EncodedResponse, publicMaxAge } from "../public/PublicResponses.js"
import { PublicResponseTimes } from "../public/PublicResponseTimes.js"
import { PublicUptime } from "../public/PublicUptime.js"
import { historyPages, historyPageSize, historyPath, incidentPage } from "../public/render/Pages.js"
import { SnapshotResponses } from "../public/SnapshotResponses.js"
import { PublicSnapshot } from "../public/state/PublicSnapshot.js"
import { holdsPage } from "../public/state/PublicStatus.js"
import { showsEverything } from "../public/state/Site.js"
import type { MirrorObject } from "./MirrorStore.js"

/** Written in this order, so an object is in place before the pages that link to it. */
export type Stage = "items" | "history" | "index"

export interface MirrorEntry {
  readonly path: string
  readonly stage: Stage
  readonly object: MirrorObject
}

export interface MirrorContents {
  /** The objects made this time: all of those that may have changed. */
  readonly entries: ReadonlyArray<MirrorEntry>
  /** Every path the mirror holds for this state, with its content type (made now or not). */
  readonly paths: ReadonlyArray<{ readonly path: string; readonly contentType: string }>
}

/** Which incidents the snapshot does not hold to read again: all, or those a change touched. */
export type Archived = "all" | ReadonlySet<string>

const cacheControl = `public, max-age=${publicMaxAge}`
const jsonType = "application/json"
const status = "/api/v1/status"

const objectOf = (response: Pick<EncodedResponse, "body" | "contentType">): MirrorObject => ({
  body: response.body,
  contentType: response.contentType,
  cacheControl
})

export class MirrorObjects extends Context.Service<MirrorObjects>()("MirrorObjects", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const pages = yield* PublicPages
    const responses = yield* SnapshotResponses
    const uptime = yield* PublicUptime
    const responseTimes = yield* PublicResponseTimes

    /**
     * The mirror's contents for the current public state. `incidentsChanged`: history pages the
     * snapshot does not hold are made again too.
     */
    const contentsOf = Effect.fn("MirrorObjects.current")(function*(archived: Archived, incidentsChanged: boolean) {
      const snapshot = yield* snapshots.upToDate
      const entries: Array<MirrorEntry> = []
      const paths: Array<{ path: string; contentType: string }> = []
      const add = (path: string, stage: Stage, response: Pick<EncodedResponse, "body" | "contentType"> | null) => {
        if (response !== null) entries.push({ path, stage, object: objectOf(response) })
      }
      const expect = (path: string, contentType: string) => paths.push({ path, contentType })

      // Every public page: the default one at the root, the others under /p/<slug>/. A protected
      // page is never mirrored (a bucket cannot ask for its password).
      for (const page of snapshot.site.pages) {
        if (page.isProtected) continue
        const base = page.isDefault ? "" : `/p/${page.slug}`
        const visit = page.isDefault ? {} : { slug: page.slug }
        const reading = { page, base, locale: page.locale, linkLocale: undefined }
        const at = { page, base }
        const state = page.state()
        const ids = yield* snapshots.incidentIds(snapshot, page)
        const held = new Set(state.incidents.map((incident) => incident.id))
        const fixed = (path: string, response: EncodedResponse | undefined) => {
          if (response === undefined) return
          add(base + path, "items", response)
          expect(base + path, response.contentType)
        }

        for (const path of ["", "/components", "/maintenance", "/incidents", "/rss", "/atom"]) {
          fixed(status + path, responses.ofSnapshot(snapshot, status + path, at))
        }
        fixed(`${status}/uptime`, yield* uptime.get(defaultUptimePeriod, page))
        for (const component of state.components) {
          fixed(
            `${status}/components/${component.id}/response-times`,
            yield* responseTimes.get(component.id, defaultResponseTimesPeriod)
          )
        }
        fixed("/badge.svg", (yield* pages.badge(undefined, visit)) ?? undefined)
        fixed("/widget.json", (yield* pages.widget(visit)) ?? undefined)

        // Every public incident the page shows has a page and its JSON; held ones are made from memory.
        for (const id of ids) {
          expect(`${base}/incidents/${id}`, htmlContentType)
          expect(`${base}${status}/incidents/${id}`, jsonType)
          if (held.has(id)) {
            add(`${base}/incidents/${id}`, "items", yield* pages.incident(id, visit))
            add(
              `${base}${status}/incidents/${id}`,
              "items",
              responses.ofSnapshot(snapshot, `${status}/incidents/${id}`, at) ?? null
            )
          } else if (archived === "all" || archived.has(id)) {
            const incident = yield* snapshots.archived(snapshot, id, page)
            if (Option.isNone(incident)) continue
            add(`${base}/incidents/${id}`, "items", {
              body: Buffer.from(incidentPage(renderOf(reading), incident.value).html),
              contentType: htmlContentType
            })
            add(`${base}${status}/incidents/${id}`, "items", encodedJson(PublicIncidentDetail, incident.value))
          }
        }
        for (const window of state.maintenance) {
          expect(`${base}/maintenance/${window.id}`, htmlContentType)
          add(`${base}/maintenance/${window.id}`, "items", yield* pages.maintenance(window.id, visit))
        }

        const count = historyPages(ids.size)
        for (let number = 1; number <= count; number++) {
          expect(base + historyPath(number), htmlContentType)
          // A page that shows only some components pages through the index: made again with the incidents.
          const inMemory = showsEverything(page.scope)
            ? holdsPage(snapshot.state, {
              offset: (number - 1) * historyPageSize,
              limit: historyPageSize,
              status: undefined
            })
            : snapshot.state.complete
          if (inMemory || incidentsChanged || archived === "all") {
            add(base + historyPath(number), "history", yield* pages.history(number, visit))
          }
        }
        expect(`${base}/`, htmlContentType)
        add(`${base}/`, "index", yield* pages.status(visit))
      }
      return { snapshot, contents: { entries, paths } satisfies MirrorContents }
    })

    return {
      current: (archived: Archived, incidentsChanged: boolean) =>
        contentsOf(archived, incidentsChanged).pipe(
          // The pages are made from the latest snapshot: made while a refresh replaced it, they
          // may mix two states (an index naming an incident whose page was not made). Again, then.
          Effect.repeat({ until: (made) => made.snapshot === snapshots.latest(), times: 3 }),
          Effect.map(({ contents }) => contents)
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      PublicSnapshot.layer,
      PublicPages.layer,
      SnapshotResponses.layer,
      PublicUptime.layer,
      PublicResponseTimes.layer
    ])
  )
}
