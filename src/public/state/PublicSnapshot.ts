/**
 * The public read side, served from memory: the public state, whose responses the room's edge
 * encodes once (bytes, ETag) at their first request (SnapshotResponses, PublicPages), so in the
 * steady state a public request costs no database query. The snapshot knows nothing of HTTP.
 *
 * Stale-while-revalidate: readers always get the last built snapshot and never wait for a
 * refresh; a refresh starts as soon as a change is announced (StateChanges; bursts coalesce
 * into one) and replaces the snapshot when done. A refresh reads again only what the changes
 * since the last one touched (an incident, the components, ...), and keeps the parts that do not
 * depend on it (and the edge their responses), so it costs a query or two rather than a whole
 * rebuild; a change that does not say what it touched rebuilds everything. Readers see the
 * previous state at most for the time of one refresh, and the writer's own response waits for
 * it (StateChanges.commit runs the refresh, or waits for the one under way and runs its own).
 * Only before the first snapshot does a reader wait for a build (503 if the database is away).
 * A refresh that cannot reach the database leaves the last snapshot in service, keeps what it
 * was to read, and is tried again a second later.
 *
 * The state is bounded (PublicStatus: open and recent incidents), so a rebuild costs the same
 * however long the history; older incidents and pages are read from the database on demand.
 * Whether an id names a public incident at all, and where the lists end, is told by an index of
 * every public incident's id, read once per snapshot at the first question that needs it: a
 * flood of unknown ids or pages past the end costs no query until the next refresh.
 */
import { Context, DateTime, Deferred, Effect, Exit, Layer, Option, PubSub, Schedule, Semaphore } from "effect"

import type { IncidentStatus, PublicIncidentDetail } from "../../domain/Incident.js"
import { StateChanges, touchesPublic } from "../../services/StateChanges.js"
import type { IncidentIndex, IncidentsPage, PublicState } from "./PublicStatus.js"
import { assemble, holdsPage, PublicStatus } from "./PublicStatus.js"
import type { Site, SitePage } from "./Site.js"
import { incidentOnPage, makeSite, showsEverything, showsItem } from "./Site.js"

/** The public state as read at one time; replaced whole by a refresh, never changed. */
export interface Snapshot {
  readonly state: PublicState
  /** The status pages, as views over `state`. */
  readonly site: Site
  /** When it was read: the feeds' date when they list nothing. */
  readonly readAt: DateTime.Utc
}

/** Whether `page` is absent or shows all the state holds: then the state's own lists are the page's. */
const whole = (page: SitePage | undefined): page is undefined => page === undefined || showsEverything(page.scope)

export interface IncidentsQuery {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly status?: IncidentStatus | undefined
}

export class PublicSnapshot extends Context.Service<PublicSnapshot>()("PublicSnapshot", {
  make: Effect.gen(function*() {
    const publicStatus = yield* PublicStatus
    const changes = yield* StateChanges
    const rebuildLock = yield* Semaphore.make(1)
    const tracker = yield* changes.registerReadSide(Effect.suspend(() => catchUp))

    let current: { readonly version: number; readonly snapshot: Snapshot } | undefined

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
      // A change that touched nothing public (or only the monitors' states, the dashboard's):
      // the same snapshot is current at its version.
      if (previous !== undefined && !touchesPublic(touched)) {
        current = { version, snapshot: previous.snapshot }
        return Effect.succeed(previous.snapshot)
      }
      return Effect.zipWith(
        publicStatus.read(previous?.snapshot.state.parts, touched),
        DateTime.now,
        (parts, readAt): Snapshot => {
          const state = assemble(parts)
          return { state, site: makeSite(state, parts.pages), readAt }
        }
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

    /** How many public incidents there are (on `page`): from the snapshot or its index. */
    const incidentCount = (snapshot: Snapshot, page?: SitePage) => {
      if (whole(page)) {
        return snapshot.state.complete
          ? Effect.succeed(snapshot.state.incidents.length)
          : Effect.map(indexOf(snapshot), (known) => known.ids.size)
      }
      return snapshot.state.complete
        ? Effect.succeed(page.state().incidents.length)
        : Effect.map(
          indexOf(snapshot),
          (known) => known.entries.filter((entry) => showsItem(page.scope, entry.componentIds)).length
        )
    }

    /** A page's incident held in its view, or read from the database and narrowed to the page. */
    const onPage = (page: SitePage, id: string) => {
      const held = page.state().incidents.find((incident) => incident.id === id)
      return held
        ? Effect.succeed(Option.some(held))
        : Effect.map(publicStatus.incident(id), Option.map((incident) => incidentOnPage(page.scope, incident)))
    }

    /**
     * A page of incidents, from memory when the snapshot holds it or it lies past the end (the
     * index tells), else from the database. A page that shows only some components pages through
     * the index's entries it shows, and reads the incidents its view does not hold.
     */
    const incidentsPage = (snapshot: Snapshot, query: IncidentsQuery, page?: SitePage) => {
      const wanted: IncidentsPage = { offset: query.offset ?? 0, limit: query.limit ?? 20, status: query.status }
      const matchingIn = (incidents: ReadonlyArray<PublicIncidentDetail>) =>
        (wanted.status === undefined ? incidents : incidents.filter((incident) => incident.status === wanted.status))
          .slice(wanted.offset, wanted.offset + wanted.limit)
      if (!whole(page)) {
        if (snapshot.state.complete) return Effect.succeed(matchingIn(page.state().incidents))
        return Effect.flatMap(indexOf(snapshot), (known) => {
          const ids = known.entries
            .filter((entry) =>
              (wanted.status === undefined || entry.status === wanted.status) &&
              showsItem(page.scope, entry.componentIds)
            )
            .slice(wanted.offset, wanted.offset + wanted.limit)
          return Effect.map(
            Effect.forEach(ids, (entry) => onPage(page, entry.id), { concurrency: 4 }),
            (found) => found.flatMap((incident) => Option.isSome(incident) ? [incident.value] : [])
          )
        })
      }
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
      return Effect.succeed(matchingIn(snapshot.state.incidents))
    }

    /**
     * An incident the snapshot does not hold is read from the database, if the index knows it
     * (and the snapshot does not hold them all) and `page` shows it: an unknown id costs no query.
     */
    const archived = (snapshot: Snapshot, id: string, page?: SitePage) =>
      snapshot.state.complete
        ? Effect.succeed(Option.none<PublicIncidentDetail>())
        : Effect.flatMap(indexOf(snapshot), (known) => {
          if (!known.ids.has(id)) return Effect.succeed(Option.none<PublicIncidentDetail>())
          if (whole(page)) return publicStatus.incident(id)
          const entry = known.entries.find((candidate) => candidate.id === id)
          return entry !== undefined && showsItem(page.scope, entry.componentIds)
            ? onPage(page, id)
            : Effect.succeed(Option.none<PublicIncidentDetail>())
        })

    return {
      get,
      /**
       * The snapshot that shows every change announced so far: the last one, or one refreshed now
       * (the mirror publishes what a reader will see, never a state a change already replaced).
       */
      upToDate: rebuild,
      /** The last built snapshot, if any: caches derived from it are current while it is. */
      latest: (): Snapshot | undefined => current?.snapshot,
      /** For the metrics: when the snapshot served was built (epoch ms), and whether a change announced since awaits a rebuild. */
      freshness: () => ({ builtAt, behind: current !== undefined && current.version !== changes.version() }),
      /** An incident the snapshot does not hold, for the API's incident details (SnapshotResponses). */
      archived,

      /** An incident with its timeline, for the public pages (of `page`): held or read on demand. */
      incidentDetail: (snapshot: Snapshot, id: string, page?: SitePage) => {
        const held = (whole(page) ? snapshot.state : page.state()).incidents.find((incident) => incident.id === id)
        return held ? Effect.succeed(Option.some(held)) : archived(snapshot, id, page)
      },

      /** A page of incidents with their timelines, for the public pages. */
      incidentsPage,

      /** How many public incidents there are (the history's page count). */
      incidentCount,

      /** The id of every public incident (on `page`): the snapshot's, or its index's when it holds only recent ones. */
      incidentIds: (snapshot: Snapshot, page?: SitePage): Effect.Effect<ReadonlySet<string>, IndexError> => {
        if (snapshot.state.complete) {
          const incidents = whole(page) ? snapshot.state.incidents : page.state().incidents
          return Effect.succeed(new Set(incidents.map((incident) => incident.id)))
        }
        return Effect.map(indexOf(snapshot), (known) =>
          whole(page)
            ? known.ids
            : new Set(
              known.entries.filter((entry) => showsItem(page.scope, entry.componentIds)).map((entry) => entry.id)
            ))
      }
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([PublicStatus.layer, StateChanges.layer]))
}
