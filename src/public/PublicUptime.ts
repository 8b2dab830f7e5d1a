/**
 * `GET /api/v1/status/uptime` served from memory: each period's records are read from the
 * rollups once and kept encoded (bytes, ETag) while they can still be current, so a crowd of
 * readers during an outage costs one query per period, not one per request.
 *
 * A period's response is read again after a refresh of the rollups in this process, once the
 * public snapshot is replaced (a component renamed, hidden or added), and at the latest after
 * `maxAge` (the aggregation may run in another process): so downtime shows here at most a few
 * seconds after it reaches the rollups. `maxAge` is the `max-age` public responses already
 * carry, so no reader waits longer than a cache in between would make it.
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, Schema } from "effect"

import { UptimePeriod, UptimeRecord } from "../domain/Uptime.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"
import { Uptime } from "../services/monitoring/Uptime.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { encodedJson, publicMaxAge } from "./PublicResponses.js"
import type { Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import { readsDefault, showsEverything, type SitePage, type Visit } from "./state/Site.js"

const maxAge = Duration.toMillis(Duration.seconds(publicMaxAge))
const UptimeRecords = Schema.Array(UptimeRecord)
const isPeriod = Schema.is(UptimePeriod)
const path = "/api/v1/status/uptime"

type ReadError = Effect.Error<ReturnType<Uptime["Service"]["read"]>>

interface Entry {
  readonly response: EncodedResponse
  readonly records: ReadonlyArray<UptimeRecord>
  /** The answers of the pages that show only some components, made at their first request. */
  readonly ofPages: Map<string, EncodedResponse>
  readonly readAt: number
  readonly snapshot: Snapshot | undefined
  readonly refreshes: number
}

/** The period a request URL asks for, when it is one the fast path may answer: the path alone, or `?period=` a period. */
const periodOfUrl = (url: string): UptimePeriod | undefined => {
  if (url === path) return defaultUptimePeriod
  const period = url.startsWith(`${path}?period=`) ? url.slice(path.length + 8) : undefined
  return period !== undefined && isPeriod(period) ? period : undefined
}

export class PublicUptime extends Context.Service<PublicUptime>()("PublicUptime", {
  make: Effect.gen(function*() {
    const uptime = yield* Uptime
    const snapshots = yield* PublicSnapshot
    // The service's Clock, read synchronously by the fast path (a TestClock in tests).
    const clock = yield* Clock.Clock
    const entries = new Map<UptimePeriod, Entry>()
    /** The read under way per period: readers arriving meanwhile share its result, or its failure. */
    const reads = new Map<UptimePeriod, Deferred.Deferred<Entry, ReadError>>()

    const current = (period: UptimePeriod) => {
      const entry = entries.get(period)
      return entry !== undefined && entry.snapshot === snapshots.latest() && entry.refreshes === uptime.refreshes() &&
          clock.currentTimeMillisUnsafe() - entry.readAt < maxAge
        ? entry
        : undefined
    }

    /** A page's answer: the records of its components, in its order. */
    const ofPage = (entry: Entry, page: SitePage | undefined) => {
      if (page === undefined || showsEverything(page.scope)) return entry.response
      let response = entry.ofPages.get(page.id)
      if (response === undefined) {
        const byId = new Map(entry.records.map((record) => [record.componentId, record]))
        const records = page.state().components.flatMap((component) => byId.get(component.id) ?? [])
        response = encodedJson(UptimeRecords, records)
        entry.ofPages.set(page.id, response)
      }
      return response
    }

    // Uninterruptible: the readers waiting on it must get an answer.
    const read = (period: UptimePeriod) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const underway = reads.get(period)
          if (underway !== undefined) return yield* restore(Deferred.await(underway))
          const done = yield* Deferred.make<Entry, ReadError>()
          reads.set(period, done)
          const entry = {
            readAt: clock.currentTimeMillisUnsafe(),
            snapshot: snapshots.latest(),
            refreshes: uptime.refreshes()
          }
          const outcome = yield* Effect.exit(
            Effect.map(uptime.read(period), (records): Entry => ({
              ...entry,
              records,
              response: encodedJson(UptimeRecords, records),
              ofPages: new Map()
            }))
          )
          if (outcome._tag === "Success") entries.set(period, outcome.value)
          reads.delete(period)
          yield* Deferred.done(done, outcome)
          return yield* outcome
        })
      )

    return {
      /** A period's answer, for the default page or for `page` (the records of its components). */
      get: Effect.fn("PublicUptime.get")((period: UptimePeriod, page?: SitePage) =>
        Effect.suspend(() => {
          const fresh = current(period)
          return Effect.map(fresh !== undefined ? Effect.succeed(fresh) : read(period), (entry) => ofPage(entry, page))
        })
      ),

      /** The current response for a request URL, if there is one; for the request-listener fast path. */
      cachedNow: (url: string, visit: Visit = {}): EncodedResponse | undefined => {
        const period = periodOfUrl(url)
        const snapshot = snapshots.latest()
        return period === undefined || snapshot === undefined || !readsDefault(snapshot.site, visit)
          ? undefined
          : current(period)?.response
      }
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Uptime.layer, PublicSnapshot.layer]))
}
