/**
 * For the metrics: the length (XLEN) and the entries delivered but not acknowledged (XPENDING)
 * of each known region's jobs and results streams, in one round trip.
 */
import { Effect } from "effect"
import type { Redis } from "ioredis"

import { ingestGroup, type QueueError, type StreamBacklog } from "../JobTransport.js"
import type { KnownRegions } from "./KnownRegions.js"
import { call } from "./RedisConnection.js"
import type { StreamKeys } from "./StreamKeys.js"

export const streamBacklog = (
  { regions: { scanRegions }, shared, streams: { jobsKey, resultsKey } }: {
    readonly shared: Redis
    readonly streams: StreamKeys
    readonly regions: KnownRegions
  }
): Effect.Effect<ReadonlyArray<StreamBacklog>, QueueError> =>
  Effect.flatMap(scanRegions, ({ known }) => {
    const streams = [...known].flatMap((region) => [
      { stream: "jobs" as const, region, key: jobsKey(region), group: region },
      { stream: "results" as const, region, key: resultsKey(region), group: ingestGroup }
    ])
    const pipeline = shared.pipeline()
    for (const { group, key } of streams) pipeline.xlen(key).xpending(key, group)
    // One round trip; a stream or group not made yet counts as empty.
    return Effect.map(call("reading the streams' backlog", () => pipeline.exec()), (replies) =>
      streams.map(({ region, stream }, i) => {
        const [lengthError, length] = replies?.[2 * i] ?? [null, 0]
        const [pendingError, summary] = replies?.[2 * i + 1] ?? [null, [0]]
        return {
          stream,
          region,
          length: lengthError ? 0 : Number(length),
          pending: pendingError ? 0 : Number((summary as [number])[0])
        }
      }))
  })
