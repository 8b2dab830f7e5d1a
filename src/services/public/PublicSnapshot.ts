/**
 * The public read side, served from memory: the public state with its responses encoded once
 * (bytes, ETag) at their first request, so in the steady state a public request costs no
 * database query.
 *
 * Stale-while-revalidate: readers always get the last built snapshot and never wait for a
 * refresh; a refresh starts as soon as a change is announced (StateChanges; bursts coalesce
 * into one) and replaces the snapshot when done. A refresh reads again only what the changes
 * since the last one touched (an incident, the components, ...), and keeps the responses that
 * do not depend on it, so it costs a query or two rather than a whole rebuild; a change that
 * does not say what it touched rebuilds everything. Readers see the previous state at most
 * for the time of one refresh, and the writer's own response waits for it (StateChanges.commit
 * runs the refresh, or waits for the one under way and runs its own). Only before the first
 * snapshot does a reader wait for a build (503 if the database is away). A refresh that cannot
 * reach the database leaves the last snapshot in service, keeps what it was to read, and is
 * tried again a second later.
 *
 * The state is bounded (PublicStatus: open and recent incidents), so a rebuild costs the same
 * however long the history; older incidents and pages are read from the database on demand.
 * Whether an id names a public incident at all, and where the lists end, is told by an index of
 * every public incident's id, read once per snapshot at the first question that needs it: a
 * flood of unknown ids or pages past the end costs no query until the next refresh.
 */
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"

import { Context, DateTime, Deferred, Effect, Exit, Layer, Option, PubSub, Schedule, Schema, Semaphore } from "effect"

import { AppConfig } from "../../Config.js"
import { PublicComponent } from "../../domain/Component.js"
import { NotFound } from "../../domain/Errors.js"
import type { IncidentStatus } from "../../domain/Incident.js"
import { PublicIncident, PublicIncidentDetail } from "../../domain/Incident.js"
import { PublicMaintenance } from "../../domain/Maintenance.js"
import { StatusSummary } from "../../domain/Status.js"
import { StateChanges } from "../StateChanges.js"
import { atomFeed, rssFeed } from "./Feeds.js"
import type { IncidentIndex, IncidentsPage, PublicParts, PublicState } from "./PublicStatus.js"
import { assemble, holdsPage, PublicStatus } from "./PublicStatus.js"

/** A response ready to write: the bytes (and, unless they are few, the same gzipped), their content type and ETag. */
export interface EncodedResponse {
  readonly body: Uint8Array
  /** For clients that accept gzip; left out below `gzipFrom` bytes. */
  readonly gzipped?: Uint8Array | undefined
  readonly contentType: string
  readonly etag: string
}

/** Browsers and CDNs may reuse a public response this many seconds, then revalidate (304). */
export const publicMaxAge = 5

/**
 * Smaller bodies go as they are: gzip would save a few hundred bytes at most. Larger ones (the
 * summary during an incident, the feeds, the page) are gzipped once per build rather than once
 * per request; during an outage most readers get a tenth of the bytes.
 */
const gzipFrom = 1024

export const encodeResponse = (text: string, contentType: string): EncodedResponse => {
  const body = Buffer.from(text)
  return {
    body,
    gzipped: body.byteLength >= gzipFrom ? gzipSync(body) : undefined,
    contentType,
    etag: `"${createHash("sha1").update(body).digest("base64url")}"`
  }
}

export const encodedJson = <A, I>(schema: Schema.Codec<A, I>, value: A) =>
  encodeResponse(JSON.stringify(Schema.encodeSync(schema)(value)), "application/json")

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
 * Each response's encoding, by path: made apart from the snapshot's build so that its closures
 * hold `state` alone. Closures made in one function share its variables, and one beside
 * `previous` would keep every earlier snapshot alive through its lazy responses.
 */
const encoders = (state: PublicState, now: DateTime.Utc, publicUrl: string) => {
  const feed = { title: state.organizationName, publicUrl, incidents: state.incidents, maintenance: state.maintenance }
  return {
    summary: () => encodedJson(StatusSummary, state.summary),
    components: () => encodedJson(Schema.Array(PublicComponent), state.components),
    maintenance: () => encodedJson(Schema.Array(PublicMaintenance), state.summary.upcomingMaintenance),
    incidents: () => encodedJson(IncidentList, state.incidents.slice(0, 20).map(listItem)),
    rss: () => encodeResponse(rssFeed(feed, now), "application/rss+xml; charset=utf-8"),
    atom: () => encodeResponse(atomFeed(feed, now), "application/atom+xml; charset=utf-8")
  }
}

export interface Snapshot {
  readonly state: PublicState
  /**
   * Responses by exact request path (no query string), each encoded at its first request: a
   * write waits for the state to be read, not for every response to be encoded again.
   */
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
const incidentPath = (id: string) => `${base}/incidents/${encodeURIComponent(id)}`

export interface IncidentsQuery {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly status?: IncidentStatus | undefined
}

export class PublicSnapshot extends Context.Service<PublicSnapshot>()("PublicSnapshot", {
  make: Effect.gen(function*() {
    const publicStatus = yield* PublicStatus
    const changes = yield* StateChanges
    const { publicUrl } = yield* AppConfig
    const rebuildLock = yield* Semaphore.make(1)
    const tracker = yield* changes.registerReadSide(Effect.suspend(() => catchUp))

    let current: { readonly version: number; readonly snapshot: Snapshot } | undefined
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
     * The responses of `state`. Those that depend only on parts `previous` was made of too are
     * taken from it: after a component's change, the incidents' list, their details and the
     * feeds are the same (and encoded once for both).
     */
    const build = (state: PublicState, now: DateTime.Utc, previous: Snapshot | undefined): Snapshot => {
      const same = (...parts: ReadonlyArray<keyof PublicParts>) =>
        previous !== undefined && parts.every((part) => previous.state.parts[part] === state.parts[part])
      const encode = encoders(state, now, publicUrl)
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
      return { state, byPath }
    }

    /**
     * Brings the snapshot up to the version announced now, reading again what the changes since
     * the last refresh touched (everything for the first). What is touched is taken before the
     * read: a change announced meanwhile gets a refresh of its own. What a failed refresh was to
     * read is given back, for the next one.
     */
    let builtAt: number | undefined
    const rebuild = rebuildLock.withPermits(1)(Effect.suspend(() => {
      const { touched, version } = tracker.take()
      const previous = current
      if (previous?.version === version) return Effect.succeed(previous.snapshot)
      // A change that touched nothing public: the same snapshot is current at its version.
      if (previous !== undefined && Object.keys(touched).length === 0) {
        current = { version, snapshot: previous.snapshot }
        return Effect.succeed(previous.snapshot)
      }
      return Effect.zipWith(
        publicStatus.read(previous?.snapshot.state.parts, touched),
        DateTime.now,
        (parts, now) => build(assemble(parts), now, previous?.snapshot)
      ).pipe(
        Effect.tap((snapshot) =>
          Effect.sync(() => {
            current = { version, snapshot }
            builtAt = Date.now()
          })
        ),
        Effect.onError(() => Effect.sync(() => tracker.giveBack(touched)))
      )
    }))

    // A write answers once this instance's snapshot shows it: it runs the refresh itself, or
    // waits for the one under way and then runs its own. Whole once started; a failure is left
    // to the background refresh below, which retries.
    const catchUp: Effect.Effect<void> = rebuild.pipe(Effect.uninterruptible, Effect.ignore)

    /** The last snapshot, however recent; only the first is waited for (503 while the database is away). */
    const get = Effect.suspend(() => current ? Effect.succeed(current.snapshot) : rebuild)

    // Build at start-up, then refresh at once after each change (a burst: once), so readers find it ready.
    const refresh = rebuild.pipe(
      // Like the maintenance clock: interrupted between refreshes, not inside one's queries.
      Effect.uninterruptible,
      Effect.tapError((error) =>
        Effect.logWarning("Refreshing the public snapshot failed; trying again in a second", error)
      ),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.catchCause((cause) => Effect.logError("Refreshing the public snapshot failed", cause))
    )
    const notifications = yield* changes.subscribe
    yield* refresh.pipe(
      Effect.andThen(Effect.forever(PubSub.takeAll(notifications).pipe(Effect.andThen(refresh)))),
      Effect.forkScoped
    )

    type IndexError = Effect.Error<typeof publicStatus.incidentIndex>
    /** The index of the snapshot that asked last, being read or read; readers asking meanwhile share the read. */
    let index: { readonly snapshot: Snapshot; readonly read: Deferred.Deferred<IncidentIndex, IndexError> } | undefined

    /**
     * Every public incident's id, read once per snapshot (a snapshot that holds them all needs
     * none). Uninterruptible, so readers sharing the read get an answer; a failed read is not
     * kept, and the next question tries again.
     */
    const indexOf = (snapshot: Snapshot) =>
      Effect.suspend(() => {
        if (index?.snapshot === snapshot) return Deferred.await(index.read)
        const mine = { snapshot, read: Deferred.makeUnsafe<IncidentIndex, IndexError>() }
        index = mine
        return publicStatus.incidentIndex.pipe(
          Effect.onExit((exit) => {
            if (Exit.isFailure(exit) && index === mine) index = undefined
            return Deferred.done(mine.read, exit)
          }),
          Effect.uninterruptible
        )
      })

    /** How many public incidents there are: from the snapshot or its index. */
    const incidentCount = (snapshot: Snapshot) =>
      snapshot.state.complete
        ? Effect.succeed(snapshot.state.incidents.length)
        : Effect.map(indexOf(snapshot), (known) => known.ids.size)

    /**
     * A page of incidents, from memory when the snapshot holds it or it lies past the end (the
     * index tells), else from the database.
     */
    const page = (snapshot: Snapshot, query: IncidentsQuery) => {
      const wanted: IncidentsPage = { offset: query.offset ?? 0, limit: query.limit ?? 20, status: query.status }
      if (!holdsPage(snapshot.state, wanted)) {
        // Pages of an unresolved status are held whole: here the status is none or `resolved`.
        return Effect.flatMap(
          indexOf(snapshot),
          (known) =>
            wanted.offset >= (wanted.status === undefined ? known.ids.size : known.resolved)
              ? Effect.succeed([])
              : publicStatus.incidentsPage(wanted)
        )
      }
      const matching = wanted.status === undefined
        ? snapshot.state.incidents
        : snapshot.state.incidents.filter((incident) => incident.status === wanted.status)
      return Effect.succeed(matching.slice(wanted.offset, wanted.offset + wanted.limit))
    }

    /**
     * An incident the snapshot does not hold is read from the database, if the index knows it
     * (and the snapshot does not hold them all): an unknown id costs no query.
     */
    const archived = (snapshot: Snapshot, id: string) =>
      snapshot.state.complete
        ? Effect.succeed(Option.none<PublicIncidentDetail>())
        : Effect.flatMap(
          indexOf(snapshot),
          (known) => known.ids.has(id) ? publicStatus.incident(id) : Effect.succeed(Option.none<PublicIncidentDetail>())
        )

    return {
      get,
      /** The last built snapshot, if any: caches derived from it are current while it is. */
      latest: (): Snapshot | undefined => current?.snapshot,
      /** For the metrics: when the snapshot served was built (epoch ms), and whether a change announced since awaits a rebuild. */
      freshness: () => ({ builtAt, behind: current !== undefined && current.version !== changes.version() }),
      /** The last snapshot's pre-encoded response for `path`, if any; for the request-listener fast path. */
      cachedNow: (path: string): EncodedResponse | undefined => current?.snapshot.byPath.get(path)?.(),

      cached: (path: string) => Effect.map(get, (snapshot) => snapshot.byPath.get(path)?.()),

      incident: (id: string) =>
        Effect.flatMap(get, (snapshot) => {
          const found = snapshot.byPath.get(incidentPath(id))
          if (found) return Effect.succeed(found())
          return Effect.flatMap(
            archived(snapshot, id),
            Option.match({
              onNone: () => Effect.fail(NotFound.of("Incident", id)),
              onSome: (incident) => Effect.succeed(encodedJson(PublicIncidentDetail, incident))
            })
          )
        }),

      /** A page of public incidents, newest first, encoded for this query. */
      incidents: (query: IncidentsQuery) =>
        Effect.flatMap(
          get,
          (snapshot) =>
            Effect.map(page(snapshot, query), (incidents) => encodedJson(IncidentList, incidents.map(listItem)))
        ),

      /** An incident with its timeline, for the public pages: held or read on demand. */
      incidentDetail: (snapshot: Snapshot, id: string) => {
        const held = snapshot.state.incidents.find((incident) => incident.id === id)
        return held ? Effect.succeed(Option.some(held)) : archived(snapshot, id)
      },

      /** A page of incidents with their timelines, for the public pages. */
      incidentsPage: page,

      /** How many public incidents there are (the history's page count). */
      incidentCount
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([PublicStatus.layer, StateChanges.layer]))
}
