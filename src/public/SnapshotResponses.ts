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
import { AppConfig } from "../runtime/Config.js"
import type { CachedResponse, EncodedResponse } from "./PublicResponses.js"
import { encodedJson, encodeResponse } from "./PublicResponses.js"
import { atomFeed, rssFeed } from "./render/Feeds.js"
import type { IncidentsQuery, Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import type { PublicParts, PublicState } from "./state/PublicStatus.js"

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
const encoders = (state: PublicState, now: DateTime.Utc, publicUrl: string) => {
  const feed = { title: state.organizationName, publicUrl, incidents: state.incidents, maintenance: state.maintenance }
  return {
    summary: () => encodedJson(StatusSummary, state.summary),
    components: () => encodedJson(Schema.Array(PublicComponent), state.components),
    maintenance: () => encodedJson(Schema.Array(PublicMaintenance), state.summary.upcomingMaintenance),
    // More than the first page held (or more than the snapshot holds): a link to the next one.
    incidents: (): CachedResponse => ({
      ...encodedJson(IncidentList, state.incidents.slice(0, 20).map(listItem)),
      ...(state.incidents.length > 20 || !state.complete ? { headers: { link: nextIncidentsLink({}, 0, 20) } } : {})
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

const base = "/api/v1/status"
/** The `Link` to the page after the one at `offset` (RFC 8288), with the query's status filter. */
const nextIncidentsLink = (query: IncidentsQuery, offset: number, limit: number) => {
  const search = new URLSearchParams({
    ...(query.status === undefined ? {} : { status: query.status }),
    offset: String(offset + limit),
    limit: String(limit)
  })
  return `<${base}/incidents?${search}>; rel="next"`
}

const incidentPath = (id: string) => `${base}/incidents/${encodeURIComponent(id)}`

export class SnapshotResponses extends Context.Service<SnapshotResponses>()("SnapshotResponses", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const { publicUrl } = yield* AppConfig

    /** Each snapshot's responses, made at its first request; they go when the snapshot goes. */
    const bySnapshot = new WeakMap<Snapshot, Responses>()
    /** The responses made last: those of the next snapshot that depend on unchanged parts are taken from them. */
    let last: Responses | undefined
    type Detail = { readonly incident: PublicIncidentDetail; readonly key: string; readonly response: Lazy }
    /**
     * The last build's incident details by id, reused while an incident is unchanged (encoding
     * dominated a build): the same object (a refresh that did not read it again), or the same key.
     */
    let details = new Map<string, Detail>()

    const encodeDetails = (incidents: ReadonlyArray<PublicIncidentDetail>) => {
      const next = new Map<string, Detail>()
      for (const incident of incidents) {
        const previous = details.get(incident.id)
        if (previous?.incident === incident) {
          next.set(incident.id, previous)
          continue
        }
        const key = unchangedKey(incident)
        next.set(
          incident.id,
          previous?.key === key
            ? { ...previous, incident }
            : { incident, key, response: lazily(() => encodedJson(PublicIncidentDetail, incident)) }
        )
      }
      details = next
      return next
    }

    /**
     * The responses of `snapshot`. Those that depend only on parts `previous` was made of too are
     * taken from it: after a component's change, the incidents' list, their details and the
     * feeds are the same (and encoded once for both).
     */
    const build = ({ readAt, state }: Snapshot, previous: Responses | undefined): Responses => {
      const same = (...parts: ReadonlyArray<keyof PublicParts>) =>
        previous !== undefined && parts.every((part) => previous.parts[part] === state.parts[part])
      const encode = encoders(state, readAt, publicUrl)
      const response = (path: string, unchanged: boolean, encoding: () => EncodedResponse) =>
        [path, (unchanged ? previous?.byPath.get(path) : undefined) ?? lazily(encoding)] as const
      const feedsUnchanged = same("incidents", "windows", "components", "organization")
      const byPath = new Map<string, Lazy>([
        response(base, false, encode.summary),
        response(`${base}/components`, same("components", "groups"), encode.components),
        response(`${base}/maintenance`, same("windows", "components"), encode.maintenance),
        response(`${base}/incidents`, same("incidents"), encode.incidents),
        response(`${base}/rss`, feedsUnchanged, encode.rss),
        response(`${base}/atom`, feedsUnchanged, encode.atom)
      ])
      for (const [id, { response }] of same("incidents") ? details : encodeDetails(state.incidents)) {
        byPath.set(incidentPath(id), response)
      }
      return { parts: state.parts, byPath }
    }

    /** The responses of `snapshot`, made once. */
    const responsesOf = (snapshot: Snapshot) => {
      let responses = bySnapshot.get(snapshot)
      if (responses === undefined) {
        responses = build(snapshot, last)
        bySnapshot.set(snapshot, responses)
        last = responses
      }
      return responses.byPath
    }

    /** `snapshot`'s pre-encoded response for `path`, if any. */
    const ofSnapshot = (snapshot: Snapshot, path: string): EncodedResponse | undefined =>
      responsesOf(snapshot).get(path)?.()

    return {
      ofSnapshot,

      /** The last snapshot's pre-encoded response for `path`, if any; for the request-listener fast path. */
      cachedNow: (path: string): EncodedResponse | undefined => {
        const snapshot = snapshots.latest()
        return snapshot === undefined ? undefined : ofSnapshot(snapshot, path)
      },

      cached: (path: string) => Effect.map(snapshots.get, (snapshot) => ofSnapshot(snapshot, path)),

      incident: (id: string) =>
        Effect.flatMap(snapshots.get, (snapshot) => {
          const found = responsesOf(snapshot).get(incidentPath(id))
          if (found) return Effect.succeed(found())
          return Effect.flatMap(
            snapshots.archived(snapshot, id),
            Option.match({
              onNone: () => Effect.fail(NotFound.of("Incident", id)),
              onSome: (incident) => Effect.succeed(encodedJson(PublicIncidentDetail, incident))
            })
          )
        }),

      /**
       * A page of public incidents, newest first, encoded for this query; one more is read to
       * tell whether a next page follows (its `Link`).
       */
      incidents: (query: IncidentsQuery) =>
        Effect.flatMap(snapshots.get, (snapshot) => {
          const offset = query.offset ?? 0
          const limit = query.limit ?? 20
          return Effect.map(
            snapshots.incidentsPage(snapshot, { ...query, limit: limit + 1 }),
            (incidents): CachedResponse => ({
              ...encodedJson(IncidentList, incidents.slice(0, limit).map(listItem)),
              ...(incidents.length > limit ? { headers: { link: nextIncidentsLink(query, offset, limit) } } : {})
            })
          )
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(PublicSnapshot.layer))
}
