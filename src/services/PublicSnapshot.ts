/**
 * The public read side, served from memory: the whole public state with its responses encoded
 * once (bytes, ETag). It is rebuilt after every change this process learns of (StateChanges), so
 * in the steady state a public request costs no database query. A rebuild that cannot reach the
 * database leaves the last snapshot in service: the status page stays up when the database is not.
 */
import { DateTime, Effect, Queue, Schema } from "effect"
import { createHash } from "node:crypto"
import { AppConfig } from "../Config.js"
import { PublicComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { PublicIncident, PublicIncidentDetail } from "../domain/Incident.js"
import type { IncidentStatus } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { StatusSummary } from "../domain/Status.js"
import { atomFeed, rssFeed } from "./Feeds.js"
import { PublicStatus } from "./PublicStatus.js"
import type { PublicState } from "./PublicStatus.js"
import { StateChanges } from "./StateChanges.js"

/** A response ready to write: the bytes, their content type and ETag. */
export interface EncodedResponse {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
}

/** Browsers and CDNs may reuse a public response this many seconds, then revalidate (304). */
export const publicMaxAge = 5

const encoded = (text: string, contentType: string): EncodedResponse => {
  const body = Buffer.from(text)
  return { body, contentType, etag: `"${createHash("sha1").update(body).digest("base64url")}"` }
}

const json = <A, I>(schema: Schema.Schema<A, I>, value: A) =>
  encoded(JSON.stringify(Schema.encodeSync(schema)(value)), "application/json")

const IncidentList = Schema.Array(PublicIncident)
const listItem = ({ updates: _, ...incident }: PublicIncidentDetail) => new PublicIncident(incident)

export interface Snapshot {
  readonly state: PublicState
  /** Pre-encoded responses by exact request path (no query string). */
  readonly byPath: ReadonlyMap<string, EncodedResponse>
}

const base = "/api/v1/status"

export interface IncidentsQuery {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly status?: IncidentStatus | undefined
}

export class PublicSnapshot extends Effect.Service<PublicSnapshot>()("PublicSnapshot", {
  scoped: Effect.gen(function*() {
    const publicStatus = yield* PublicStatus
    const changes = yield* StateChanges
    const { publicUrl } = yield* AppConfig
    const rebuildLock = yield* Effect.makeSemaphore(1)

    let current: { readonly version: number; readonly snapshot: Snapshot } | undefined

    const build = (state: PublicState, now: DateTime.Utc): Snapshot => {
      const byPath = new Map<string, EncodedResponse>([
        [base, json(StatusSummary, state.summary)],
        [`${base}/components`, json(Schema.Array(PublicComponent), state.components)],
        [`${base}/maintenance`, json(Schema.Array(PublicMaintenance), state.summary.upcomingMaintenance)],
        [`${base}/incidents`, json(IncidentList, state.incidents.slice(0, 20).map(listItem))]
      ])
      for (const incident of state.incidents) {
        byPath.set(`${base}/incidents/${encodeURIComponent(incident.id)}`, json(PublicIncidentDetail, incident))
      }
      const feed = { title: state.organizationName, publicUrl, incidents: state.incidents, maintenance: state.maintenance }
      byPath.set(`${base}/rss`, encoded(rssFeed(feed, now), "application/rss+xml; charset=utf-8"))
      byPath.set(`${base}/atom`, encoded(atomFeed(feed, now), "application/atom+xml; charset=utf-8"))
      return { state, byPath }
    }

    /** Reads the state unless a rebuild that started after the last change already did. */
    const rebuild = rebuildLock.withPermits(1)(Effect.suspend(() => {
      const version = changes.version()
      if (current?.version === version) return Effect.succeed(current.snapshot)
      return Effect.zipWith(publicStatus.state, DateTime.now, build).pipe(
        Effect.tap((snapshot) => {
          current = { version, snapshot }
        })
      )
    }))

    /** The fresh snapshot, or the last one while the database is away (503 only before the first). */
    const get = Effect.suspend(() =>
      current?.version === changes.version()
        ? Effect.succeed(current.snapshot)
        : rebuild.pipe(Effect.catchTag("ServiceUnavailable", (error) => current ? Effect.succeed(current.snapshot) : Effect.fail(error)))
    )

    // Build at start-up, then rebuild eagerly after each change, so readers (and the fast path) find it ready.
    const notifications = yield* changes.subscribe
    yield* Queue.take(notifications).pipe(
      Effect.zipRight(Queue.takeAll(notifications)),
      // Like the maintenance clock: interrupted between rebuilds, not inside one's queries.
      Effect.zipRight(
        get.pipe(Effect.catchAllCause((cause) => Effect.logWarning("Rebuilding the public snapshot failed", cause)), Effect.uninterruptible)
      ),
      Effect.forever,
      Effect.forkScoped
    )
    yield* Effect.forkScoped(get.pipe(Effect.catchAllCause((cause) => Effect.logWarning("Building the public snapshot failed", cause))))

    return {
      get,
      /** The pre-encoded response for `path` when the snapshot is current; for the request-listener fast path. */
      cachedNow: (path: string): EncodedResponse | undefined =>
        current?.version === changes.version() ? current.snapshot.byPath.get(path) : undefined,

      cached: (path: string) => Effect.map(get, (snapshot) => snapshot.byPath.get(path)),

      incident: (id: string) =>
        Effect.flatMap(get, (snapshot) => {
          const found = snapshot.byPath.get(`${base}/incidents/${encodeURIComponent(id)}`)
          return found ? Effect.succeed(found) : Effect.fail(NotFound.of("Incident", id))
        }),

      /** A page of public incidents, newest first, encoded for this query. */
      incidents: (query: IncidentsQuery) =>
        Effect.map(get, (snapshot) => {
          const offset = query.offset ?? 0
          const matching = query.status === undefined
            ? snapshot.state.incidents
            : snapshot.state.incidents.filter((incident) => incident.status === query.status)
          return json(IncidentList, matching.slice(offset, offset + (query.limit ?? 20)).map(listItem))
        })
    } as const
  }),
  dependencies: [PublicStatus.Default, StateChanges.Default]
}) {}
