/**
 * Known regions: the results streams. The regions are real time, not the Clock: they follow Redis.
 * Kept here, per transport, so that the scheduler's tick reads them without waiting on a SCAN.
 */
import { Effect, type Scope } from "effect"
import type { Redis } from "ioredis"

import { isProbeRegion } from "../../domain/Region.js"
import type { QueueError } from "../JobTransport.js"
import { call } from "./RedisConnection.js"
import { globEscape, type StreamKeys } from "./StreamKeys.js"

export interface Regions {
  /** The regions whose results stream exists: the streams ingest reads. */
  readonly existing: ReadonlySet<string>
  /** Those and the ones seen within `regionsForgetMs`: where jobs for every region go. */
  readonly known: ReadonlySet<string>
  readonly at: number
}

export interface KnownRegions {
  /** SCANs for the results streams now. */
  readonly scanRegions: Effect.Effect<Regions, QueueError>
  /** The known regions, at most about `regionsRefreshMs` old: a stale answer is refreshed in the background. */
  readonly recentRegions: Effect.Effect<Regions, QueueError>
}

export const makeKnownRegions = (
  { regionsForgetMs, regionsRefreshMs, scope, shared, streams: { resultsPrefix } }: {
    readonly shared: Redis
    readonly streams: StreamKeys
    /** Where a background refresh runs: the transport's. */
    readonly scope: Scope.Scope
    readonly regionsRefreshMs: number
    readonly regionsForgetMs: number
  }
): KnownRegions => {
  let regions: Regions | undefined
  const lastSeen = new Map<string, number>()
  let refreshing = false
  const scanRegions = call(`listing ${resultsPrefix}* streams`, async () => {
    const found = new Set<string>()
    let cursor = "0"
    do {
      const [next, keys] = await shared.scan(
        cursor,
        "MATCH",
        `${globEscape(resultsPrefix)}*`,
        "COUNT",
        1000,
        "TYPE",
        "stream"
      )
      cursor = next
      for (const key of keys) {
        const region = key.slice(resultsPrefix.length)
        if (isProbeRegion(region)) {
          found.add(region)
        }
      }
    } while (cursor !== "0")
    const now = Date.now()
    for (const region of found) {
      lastSeen.set(region, now)
    }
    for (const [region, at] of lastSeen) {
      if (now - at > regionsForgetMs) {
        lastSeen.delete(region)
      }
    }
    regions = { existing: found, known: new Set(lastSeen.keys()), at: now }
    return regions
  })
  /** The known regions, at most about `regionsRefreshMs` old: a stale answer is refreshed in the background. */
  const recentRegions = Effect.suspend(() => {
    if (regions === undefined) {
      return scanRegions
    }
    if (Date.now() - regions.at >= regionsRefreshMs && !refreshing) {
      refreshing = true
      return scanRegions.pipe(
        Effect.catch((error) =>
          Effect.logWarning("listing the known regions failed").pipe(Effect.annotateLogs({ error: error.message }))
        ),
        Effect.ensuring(Effect.sync(() => (refreshing = false))),
        Effect.forkIn(scope),
        Effect.as(regions)
      )
    }
    return Effect.succeed(regions)
  })
  return { scanRegions, recentRegions }
}
