/**
 * The public snapshot's API responses (`/api/v1/status` and below: the summary, components,
 * maintenance, incidents, their details and the feeds), encoded (bytes, gzip, ETag) at the
 * room's edge, once per snapshot: the snapshot (state/PublicSnapshot.ts) holds the state, and
 * this keeps what each snapshot answers, by exact request path, beside it. The fast path and the
 * `status` handlers (StatusHttp) read the same responses, so in the steady state a request costs
 * a map lookup and the bytes' write, never an encoding.
 *
 * A snapshot's responses are made at the first request that asks for it (a write waits for the
 * state to be read, not for every response to be encoded again) and kept for as long as the
 * snapshot lives (a WeakMap: a replaced snapshot goes with its responses). Those that depend only
 * on parts the last snapshot answered for was made of too are taken from it: after a component's
 * change, the incidents' list, their details and the feeds are the same (and encoded once for
 * both).
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"

import { PublicComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { PublicIncident, PublicIncidentDetail } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { StatusSummary } from "../domain/Status.js"
import { pageAddress } from "../domain/StatusPage.js"
import { AppConfig } from "../runtime/Config.js"
import type { CachedResponse, EncodedResponse } from "./PublicResponses.js"
import { encodedJson, encodeResponse } from "./PublicResponses.js"
import { atomFeed, rssFeed } from "./render/Feeds.js"
import type { IncidentsQuery, Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import type { PublicParts, PublicState } from "./state/PublicStatus.js"
import type { SitePage, Visit } from "./state/Site.js"
import { visiting } from "./state/Site.js"

const IncidentList = Schema.Array(PublicIncident)
const listItem = ({ postmortem: _postmortem, updates: _, ...incident }: PublicIncidentDetail) =>
  new PublicIncident(incident)

/** A response encoded at its first request and kept; snapshots that share what it shows share it. */
type Lazy = () => EncodedResponse

const lazily = (encode: () => EncodedResponse): Lazy => {
  let response: EncodedResponse | undefined
  let pending: (() => EncodedResponse) | undefined = encode
  return () => {
    if (pending !== undefined) {
      response = pending()
      pending = undefined // what it was encoded from is no longer held
    }
    return response!
  }
}

/**
 * Each response's encoding, by path: made apart from the responses' build so that its closures
 * hold `state` alone. Closures made in one function share its variables, and one beside
 * `previous` would keep every earlier snapshot's responses alive through its lazy responses.
 */
const encoders = (state: PublicState, now: DateTime.Utc, page: SitePage, publicUrl: string, base: string) => {
  const feed = {
    title: state.organizationName,
    publicUrl: pageAddress(publicUrl, page),
    locale: page.locale,
    incidents: state.incidents,
    maintenance: state.maintenance
  }
  return {
    summary: () => encodedJson(StatusSummary, state.summary),
    components: () => encodedJson(Schema.Array(PublicComponent), state.components),
    maintenance: () => encodedJson(Schema.Array(PublicMaintenance), state.summary.upcomingMaintenance),
    // More than the first page held (or more than the snapshot holds): a link to the next one.
    incidents: (): CachedResponse => ({
      ...encodedJson(IncidentList, state.incidents.slice(0, 20).map(listItem)),
      ...(state.incidents.length > 20 || !state.complete
        ? { headers: { link: nextIncidentsLink(base, {}, 0, 20) } }
        : {})
    }),
    rss: () => encodeResponse(rssFeed(feed, now), "application/rss+xml; charset=utf-8"),
    atom: () => encodeResponse(atomFeed(feed, now), "application/atom+xml; charset=utf-8")
  }
}

/**
 * A snapshot's responses by exact request path (no query string), each encoded at its first
 * request, with the parts of the state they were made from (what the next snapshot compares).
 */
interface Responses {
  readonly parts: PublicParts
  readonly byPath: ReadonlyMap<string, Lazy>
}

/**
 * What tells an incident's encoding apart from an earlier one's: every change of an incident
 * moves `updatedAt` and a new timeline entry adds to `updates`; the rest is here in case two
 * changes share a millisecond, and the public component ids change without touching it.
 */
const unchangedKey = (incident: PublicIncidentDetail) =>
  JSON.stringify([
    incident.updatedAt.epochMilliseconds,
    incident.updates.length,
    incident.updates.at(-1)?.id,
    incident.status,
    incident.severity,
    incident.title,
    incident.componentIds,
    incident.postmortem?.body
  ])

const api = "/api/v1/status"
/** The `Link` to the page after the one at `offset` (RFC 8288), with the query's status filter. */
const nextIncidentsLink = (base: string, query: IncidentsQuery, offset: number, limit: number) => {
  const search = new URLSearchParams({
    ...(query.status === undefined ? {} : { status: query.status }),
    offset: String(offset + limit),
    limit: String(limit)
  })
  return `<${base}${api}/incidents?${search}>; rel="next"`
}

const incidentPath = (base: string, id: string) => `${base}${api}/incidents/${encodeURIComponent(id)}`

/**
 * A status page as one address serves it: the page, and the prefix of its paths (`""` at the
 * site's root or on its own domain, `/p/<slug>` else), which its links and `Link` headers carry.
 */
export interface PageAt {
  readonly page: SitePage
  readonly base: string
}

/** What one page at one address last answered: its responses, and its incidents' encodings by id. */
interface PageResponses {
  readonly responses: Responses
  readonly details: Map<string, Detail>
}

type Detail = { readonly incident: PublicIncidentDetail; readonly key: string; readonly response: Lazy }

export class SnapshotResponses extends Context.Service<SnapshotResponses>()("SnapshotResponses", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const { publicUrl } = yield* AppConfig

    /** Each snapshot's responses per page and address, made at their first request; they go when the snapshot goes. */
    const bySnapshot = new WeakMap<Snapshot, Map<string, Responses>>()
    /**
     * What each page at each address answered last: the responses of the next snapshot that depend
     * on unchanged parts are taken from them, and its incidents' encodings are reused while an
     * incident is unchanged (encoding dominated a build): the same object (a refresh that did not
     * read it again), or the same key. A deleted page's go at the next build.
     */
    const last = new Map<string, PageResponses>()

    const encodeDetails = (previous: Map<string, Detail>, incidents: ReadonlyArray<PublicIncidentDetail>) => {
      const next = new Map<string, Detail>()
      for (const incident of incidents) {
        const known = previous.get(incident.id)
        if (known?.incident === incident) {
          next.set(incident.id, known)
          continue
        }
        const key = unchangedKey(incident)
        next.set(
          incident.id,
          known?.key === key
            ? { ...known, incident }
            : { incident, key, response: lazily(() => encodedJson(PublicIncidentDetail, incident)) }
        )
      }
      return next
    }

    /**
     * The responses of `snapshot` for a page at an address. Those that depend only on parts the
     * previous build was made of too are taken from it: after a component's change, the incidents'
     * list, their details and the feeds are the same (and encoded once for both).
     */
    const build = ({ readAt, site }: Snapshot, { base, page }: PageAt, previous: PageResponses | undefined) => {
      const state = page.state()
      const same = (...parts: ReadonlyArray<keyof PublicParts>) =>
        previous !== undefined &&
        [...parts, "pages" as const].every((part) => previous.responses.parts[part] === state.parts[part])
      const encode = encoders(state, readAt, page, publicUrl, base)
      const response = (path: string, unchanged: boolean, encoding: () => EncodedResponse) =>
        [path, (unchanged ? previous?.responses.byPath.get(path) : undefined) ?? lazily(encoding)] as const
      const feedsUnchanged = same("incidents", "windows", "components", "organization")
      const at = `${base}${api}`
      const byPath = new Map<string, Lazy>([
        response(at, false, encode.summary),
        response(`${at}/components`, same("components", "groups"), encode.components),
        response(`${at}/maintenance`, same("windows", "components"), encode.maintenance),
        response(`${at}/incidents`, same("incidents", "components"), encode.incidents),
        response(`${at}/rss`, feedsUnchanged, encode.rss),
        response(`${at}/atom`, feedsUnchanged, encode.atom)
      ])
      const details = previous !== undefined && same("incidents", "components")
        ? previous.details
        : encodeDetails(previous?.details ?? new Map(), state.incidents)
      for (const [id, { response }] of details) byPath.set(incidentPath(base, id), response)
      for (const key of last.keys()) {
        if (!site.pages.some((candidate) => key.startsWith(`${candidate.id}|`))) last.delete(key)
      }
      return { responses: { parts: state.parts, byPath }, details }
    }

    /** The responses of `snapshot` for a page at an address, made once. */
    const responsesOf = (snapshot: Snapshot, at: PageAt) => {
      let ofSnapshot = bySnapshot.get(snapshot)
      if (ofSnapshot === undefined) {
        ofSnapshot = new Map()
        bySnapshot.set(snapshot, ofSnapshot)
      }
      const key = `${at.page.id}|${at.base}`
      let responses = ofSnapshot.get(key)
      if (responses === undefined) {
        const built = build(snapshot, at, last.get(key))
        responses = built.responses
        ofSnapshot.set(key, responses)
        last.set(key, built)
      }
      return responses.byPath
    }

    /** The page a visit reads in `snapshot`; NotFound for a slug no page has. */
    const pageOf = (snapshot: Snapshot, visit: Visit) => {
      const at = visiting(snapshot.site, visit)
      return at === undefined ? Effect.fail(NotFound.of("Status page", visit.slug ?? "")) : Effect.succeed(at)
    }

    return {
      /** `snapshot`'s pre-encoded response for `path` below a page's base (the default page at the root when not given). */
      ofSnapshot: (
        snapshot: Snapshot,
        path: string,
        at: PageAt = { page: snapshot.site.defaultPage, base: "" }
      ): EncodedResponse | undefined => responsesOf(snapshot, at).get(at.base + path)?.(),

      /**
       * The last snapshot's pre-encoded response for `path` of a page at an address (the default
       * page at the root when not given), if any; for the request-listener fast path.
       */
      cachedNow: (path: string, visit: Visit = {}): EncodedResponse | undefined => {
        const snapshot = snapshots.latest()
        const at = snapshot === undefined ? undefined : visiting(snapshot.site, visit)
        // A protected page's responses go through the router, which asks for the reader's access.
        return at === undefined || at.page.isProtected
          ? undefined
          : responsesOf(snapshot!, at).get(at.base + path)?.()
      },

      /**
       * The response for `path` (below the page's base: `/api/v1/status/rss`) of the page a visit
       * reads (the default page at the root when not given); undefined for a path it has none for.
       */
      cached: (path: string, visit: Visit = {}) =>
        Effect.flatMap(snapshots.get, (snapshot) =>
          Effect.map(
            pageOf(snapshot, visit),
            (at): EncodedResponse | undefined => responsesOf(snapshot, at).get(at.base + path)?.()
          )),

      incident: (id: string, visit: Visit = {}) =>
        Effect.flatMap(snapshots.get, (snapshot) =>
          Effect.flatMap(pageOf(snapshot, visit), (page) => {
            const found = responsesOf(snapshot, page).get(incidentPath(page.base, id))
            if (found) return Effect.succeed(found())
            return Effect.flatMap(
              snapshots.archived(snapshot, id, page.page),
              Option.match({
                onNone: () => Effect.fail(NotFound.of("Incident", id)),
                onSome: (incident) => Effect.succeed(encodedJson(PublicIncidentDetail, incident))
              })
            )
          })),

      /**
       * A page of public incidents, newest first, encoded for this query; one more is read to
       * tell whether a next page follows (its `Link`).
       */
      incidents: (query: IncidentsQuery, visit: Visit = {}) =>
        Effect.flatMap(snapshots.get, (snapshot) =>
          Effect.flatMap(pageOf(snapshot, visit), (page) => {
            const offset = query.offset ?? 0
            const limit = query.limit ?? 20
            return Effect.map(
              snapshots.incidentsPage(snapshot, { ...query, limit: limit + 1 }, page.page),
              (incidents): CachedResponse => ({
                ...encodedJson(IncidentList, incidents.slice(0, limit).map(listItem)),
                ...(incidents.length > limit
                  ? { headers: { link: nextIncidentsLink(page.base, query, offset, limit) } }
                  : {})
              })
            )
          }))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(PublicSnapshot.layer))
}
