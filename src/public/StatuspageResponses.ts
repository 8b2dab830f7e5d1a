/**
 * The Statuspage-compatible documents (`/api/v2/*.json`, StatuspageDocuments) of every page,
 * encoded (bytes, gzip, ETag) at the first request after a snapshot and kept as long as it lives,
 * as SnapshotResponses keeps our own: a request costs a map lookup, never a query. Both the
 * request-listener fast path and the router's routes (StatuspageRoutes) read them here.
 */
import { Context, Effect, Layer } from "effect"

import { NotFound } from "../domain/Errors.js"
import { AppConfig } from "../runtime/Config.js"
import { commonHeaders } from "./PublicPages.js"
import type { CachedResponse } from "./PublicResponses.js"
import { encodeResponse } from "./PublicResponses.js"
import type { Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import type { Reading, Visit } from "./state/Site.js"
import { visiting } from "./state/Site.js"
import { statuspageDocuments, type StatuspagePath, statuspagePaths } from "./StatuspageDocuments.js"

/** Where a page's documents are, below its base. */
export const statuspageApi = "/api/v2"

/** Widgets and tools on any site read these (Statuspage's own answer the same). */
export const openToEveryOrigin = { "access-control-allow-origin": "*" } as const

const headers = { ...commonHeaders, ...openToEveryOrigin }

const known = new Set<string>(statuspagePaths)

/**
 * A request URL below a page's base as a document's path (`/summary.json`), or undefined for any
 * other. The query is ignored: Statuspage's clients send none, but widgets add cache-busters.
 */
export const documentPath = (url: string): StatuspagePath | undefined => {
  if (!url.startsWith(statuspageApi)) return undefined
  const query = url.indexOf("?")
  const path = url.slice(statuspageApi.length, query < 0 ? undefined : query)
  return known.has(path) ? path as StatuspagePath : undefined
}

type Encoded = Map<StatuspagePath, CachedResponse>

export class StatuspageResponses extends Context.Service<StatuspageResponses>()("StatuspageResponses", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const { publicUrl } = yield* AppConfig

    /** Per snapshot, per page: the documents encoded so far. They go when the snapshot goes. */
    const bySnapshot = new WeakMap<Snapshot, Map<string, { readonly encoded: Encoded; readonly build: Builders }>>()
    type Builders = ReturnType<typeof statuspageDocuments>

    const responseOf = (snapshot: Snapshot, reading: Reading, path: StatuspagePath): CachedResponse => {
      let pages = bySnapshot.get(snapshot)
      if (pages === undefined) bySnapshot.set(snapshot, pages = new Map())
      let ofPage = pages.get(reading.page.id)
      if (ofPage === undefined) {
        ofPage = {
          encoded: new Map(),
          build: statuspageDocuments({ page: reading.page, publicUrl, readAt: snapshot.readAt })
        }
        pages.set(reading.page.id, ofPage)
      }
      let response = ofPage.encoded.get(path)
      if (response === undefined) {
        response = { ...encodeResponse(JSON.stringify(ofPage.build[path]()), "application/json"), headers }
        ofPage.encoded.set(path, response)
      }
      return response
    }

    return {
      /**
       * For the request-listener fast path: the last snapshot's document for a URL below a page's
       * base, unless the page is protected (the router asks for the reader's access) or the URL is
       * none of ours.
       */
      cachedNow: (url: string, visit: Visit = {}): CachedResponse | undefined => {
        const path = documentPath(url)
        if (path === undefined) return undefined
        const snapshot = snapshots.latest()
        const reading = snapshot === undefined ? undefined : visiting(snapshot.site, visit)
        return reading === undefined || reading.page.isProtected ? undefined : responseOf(snapshot!, reading, path)
      },

      /** The document at `path` of the page a visit reads, admitted already (`reading`); NotFound for an unknown slug. */
      get: (path: StatuspagePath, visit: Visit) =>
        Effect.flatMap(snapshots.get, (snapshot) => {
          const reading = visiting(snapshot.site, visit)
          return reading === undefined
            ? Effect.fail(NotFound.of("Status page", visit.slug ?? ""))
            : Effect.succeed(responseOf(snapshot, reading, path))
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(PublicSnapshot.layer))
}
