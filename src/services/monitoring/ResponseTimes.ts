/**
 * Response times by region: ingest appends each batch's successful checks to a pending table (in
 * the statement that stores the results, CheckResultsRepo.storeResults), `fold` adds them to the hourly and daily rollups later
 * (ResponseTimeRollups, every minute), and readers get percentiles per region and bucket merged
 * from those rollups alone, so a read costs the same however many checks were stored.
 */
import { Clock, Context, Effect, Layer } from "effect"

import { NotFound } from "../../domain/Errors.js"
import type { RegionResponseTimes, ResponseTimesPeriod } from "../../domain/ResponseTimes.js"
import { ComponentResponseTimes, MonitorResponseTimes, regionsOf, windowOf } from "../../domain/ResponseTimes.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import type { StoredBucket } from "../../persistence/ResponseTimesRepo.js"
import { ResponseTimesRepo } from "../../persistence/ResponseTimesRepo.js"

/** The last 24 hours of some components, as the status page draws them. */
export interface RecentResponseTimes {
  /** Start of the oldest hour shown, and the time of the read. */
  readonly from: number
  readonly now: number
  /** The components that have monitors (a chart each), and their regions' hourly points. */
  readonly monitored: ReadonlySet<string>
  readonly regions: ReadonlyMap<string, ReadonlyArray<RegionResponseTimes>>
}

/** Pending rows a fold transaction takes at most: it holds their monitors' key-share locks until it commits. */
export const foldChunk = 2000

const byOwner = (buckets: ReadonlyArray<StoredBucket>) => {
  const owned = new Map<string, Array<StoredBucket>>()
  for (const bucket of buckets) {
    const list = owned.get(bucket.owner) ?? []
    list.push(bucket)
    owned.set(bucket.owner, list)
  }
  return owned
}

export class ResponseTimes extends Context.Service<ResponseTimes>()("ResponseTimes", {
  make: Effect.gen(function*() {
    const repo = yield* ResponseTimesRepo

    /**
     * One statement, so one transaction: takes a chunk of pending rows and adds those of
     * monitors it can share-lock to the rollups, so each row is counted once, when the statement
     * that deleted it commits (ResponseTimesRepo.fold: rows of deleted monitors are dropped, those
     * of monitors another transaction holds put back). Shutdown waits for the chunk under way.
     */
    const foldOnce = (limit: number) => orUnavailable(repo.fold(limit)).pipe(Effect.uninterruptible)

    return {
      /**
       * Adds the pending rows to the rollups, `chunk` rows a transaction, until a chunk comes back
       * short or none of it could be folded; returns how many rows it folded. Several folds may
       * run at once (SKIP LOCKED): each row is folded by one.
       */
      fold: Effect.fn("ResponseTimes.fold")(function*(chunk: number = foldChunk) {
        let total = 0
        for (;;) {
          const { folded, taken } = yield* foldOnce(chunk)
          total += folded
          if (taken < chunk || folded === 0) return total
        }
      }),

      /** A component's response times by region over `period` (whether it may be shown is the caller's call). */
      ofComponent: Effect.fn("ResponseTimes.ofComponent")(function*(componentId: string, period: ResponseTimesPeriod) {
        const { from, granularity } = windowOf(period, yield* Clock.currentTimeMillis)
        const buckets = yield* repo.ofComponents([componentId], granularity, new Date(from))
        return new ComponentResponseTimes({ componentId, period, regions: regionsOf(buckets) })
      }),

      /** A monitor's response times by region over `period`; NotFound for an unknown monitor. */
      ofMonitor: Effect.fn("ResponseTimes.ofMonitor")(function*(monitorId: string, period: ResponseTimesPeriod) {
        if (!(yield* repo.monitorExists(monitorId))) return yield* Effect.fail(NotFound.of("Monitor", monitorId))
        const { from, granularity } = windowOf(period, yield* Clock.currentTimeMillis)
        const buckets = yield* repo.ofMonitor(monitorId, granularity, new Date(from))
        return new MonitorResponseTimes({ monitorId, period, regions: regionsOf(buckets) })
      }),

      /** The last 24 hours of these components, hourly, with two queries whatever their number. */
      recent: Effect.fn("ResponseTimes.recent")(function*(componentIds: ReadonlyArray<string>) {
        const now = yield* Clock.currentTimeMillis
        const { from, granularity } = windowOf("24h", now)
        const monitored = yield* repo.monitored(componentIds)
        const owned = byOwner(yield* repo.ofComponents([...monitored], granularity, new Date(from)))
        return {
          from,
          now,
          monitored,
          regions: new Map([...monitored].map((id) => [id, regionsOf(owned.get(id) ?? [])]))
        } satisfies RecentResponseTimes
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(ResponseTimesRepo.layer))
}
