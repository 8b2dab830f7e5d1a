/**
 * Uptime rollups: `refresh` recomputes the hourly and daily buckets from the last one written
 * (so a service that was down catches up) through the current, unfinished one; `read` sums
 * the buckets of a period. Reading never touches check results or intervals.
 */
import { Clock, Context, Effect, Layer } from "effect"

import type { UptimePeriod } from "../../domain/Uptime.js"
import { UptimeRecord } from "../../domain/Uptime.js"
import type { ComponentTimeline, DownInterval, StatusChange } from "../../domain/UptimeCalculation.js"
import { bucketUptime, uptimePercentage } from "../../domain/UptimeCalculation.js"
import type { Granularity, RollupRow } from "../../persistence/UptimeRepo.js"
import { UptimeRepo } from "../../persistence/UptimeRepo.js"

const hour = 3_600_000
const day = 24 * hour
const bucketLength: Record<Granularity, number> = { hour, day }
/** How far back buckets are computed and kept: a day of hours, 90 days of days, with a margin. */
const horizon: Record<Granularity, number> = { hour: 25 * hour, day: 91 * day }
const keptFor: Record<Granularity, number> = { hour: 48 * hour, day: 400 * day }

interface Timeline extends ComponentTimeline {
  readonly statusChanges: Array<StatusChange>
  readonly downIntervals: Array<DownInterval>
}

const floorTo = (at: number, length: number) => Math.floor(at / length) * length

/** A period is the buckets that cover it, the current partial one included (docs/monitor-fleet.md, "Uptime"). */
export const periodBuckets: Record<UptimePeriod, { granularity: Granularity; count: number }> = {
  "24h": { granularity: "hour", count: 24 },
  "7d": { granularity: "day", count: 7 },
  "30d": { granularity: "day", count: 30 },
  "90d": { granularity: "day", count: 90 }
}

export class Uptime extends Context.Service<Uptime>()("Uptime", {
  make: Effect.gen(function*() {
    const repo = yield* UptimeRepo
    let refreshes = 0
    /**
     * When this process last refreshed each granularity: the buckets before that one's are final
     * (closed, and nothing dated in them changed since, or `dirtySince` says so), so a refresh
     * recomputes only the current bucket, and the one before it once more right after it closes.
     * At 10,000 components that halves what a refresh computes and writes.
     */
    const refreshedAt: Record<Granularity, number | undefined> = { hour: undefined, day: undefined }

    const refreshGranularity = (granularity: Granularity, now: number, dirtySince: number) =>
      Effect.gen(function*() {
        const length = bucketLength[granularity]
        const earliest = floorTo(now - horizon[granularity], length)
        // The first refresh catches up from the latest bucket written (the service may have been
        // away), and recomputes the bucket before the current one.
        const since = refreshedAt[granularity] ??
          Math.min((yield* repo.latestBucket(granularity))?.getTime() ?? earliest, now - length)
        const from = Math.max(earliest, floorTo(Math.min(since, dirtySince), length))
        const to = floorTo(now, length) + length
        const inputs = yield* repo.timelineInputs(new Date(from), new Date(to))

        const timelines = new Map<string, Timeline>()
        for (const component of inputs.components) {
          timelines.set(component.id, {
            createdAt: component.createdAt,
            monitorCount: component.monitorCount,
            statusChanges: [],
            downIntervals: []
          })
        }
        for (const row of inputs.statusChanges) {
          timelines.get(row.componentId)?.statusChanges.push({ at: row.startedAt, status: row.status })
        }
        for (const row of inputs.downIntervals) {
          timelines.get(row.componentId)?.downIntervals.push({
            start: row.startedAt,
            end: row.endedAt
          })
        }

        const rows: Array<RollupRow> = []
        for (let start = from; start < to; start += length) {
          for (const [componentId, timeline] of timelines) {
            const { downtimeSeconds, observedSeconds } = bucketUptime(timeline, { start, end: start + length }, now)
            if (observedSeconds > 0) {
              rows.push({ componentId, bucketStart: new Date(start), observedSeconds, downtimeSeconds })
            }
          }
        }
        yield* repo.upsert(granularity, rows)
        yield* repo.prune(granularity, new Date(now - keptFor[granularity]))
        refreshedAt[granularity] = now
      })

    return {
      refresh: Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const dirty = yield* repo.dirtySince()
        const dirtySince = dirty.since?.getTime() ?? now
        yield* refreshGranularity("hour", now, dirtySince)
        yield* refreshGranularity("day", now, dirtySince)
        if (dirty.lastId !== null) yield* repo.clearDirty(dirty.lastId)
        refreshes += 1
      }).pipe(Effect.withSpan("Uptime.refresh")),

      /** How many refreshes this process has completed: what it has read before one is out of date. */
      refreshes: () => refreshes,

      /** The last `days` daily buckets (today's partial one included) of every public component. */
      daily: Effect.fn("Uptime.daily")(function*(days: number) {
        const now = yield* Clock.currentTimeMillis
        return yield* repo.publicBuckets("day", new Date(floorTo(now, day) - (days - 1) * day))
      }),

      read: Effect.fn("Uptime.read")(function*(period: UptimePeriod) {
        const now = yield* Clock.currentTimeMillis
        const { count, granularity } = periodBuckets[period]
        const length = bucketLength[granularity]
        const from = floorTo(now, length) - (count - 1) * length
        const rows = yield* repo.publicTotals(granularity, new Date(from))
        // Fields read from the database and a computed percentage: checking them again cost about
        // 2 ms per 1,000 components of an uncached read.
        return rows.map((row) =>
          new UptimeRecord({
            componentId: row.componentId,
            componentName: row.componentName,
            uptimePercentage: uptimePercentage(row.observedSeconds, row.downtimeSeconds),
            period
          }, { disableChecks: true })
        )
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(UptimeRepo.layer))
}
