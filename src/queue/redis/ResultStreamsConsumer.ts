/**
 * Ingest's side: one member of the group `ingest` on every region's results stream, read with
 * one XREADGROUP. It joins each region's stream as the known regions find it.
 */
import { Effect, type Scope } from "effect"
import type { Redis } from "ioredis"

import { type Consumer, type Delivery, ingestGroup, type QueueError, type RegionMessage } from "../JobTransport.js"
import type { ConsumerGroups } from "./ConsumerGroups.js"
import type { KnownRegions } from "./KnownRegions.js"
import { call, connect, cut, type Endpoint } from "./RedisConnection.js"
import { decodeEntries, resultCodec, type StreamEntry } from "./StreamCodec.js"
import type { StreamKeys } from "./StreamKeys.js"

/** A wait in real time: what a blocking read waits, which the TestClock does not move. */
const realSleep = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * A member of the group `ingest` on every known region's results stream. A delivery's id is
 * `<region>/<entry id>`: entry ids of two streams may be equal.
 */
export const resultStreamsConsumer = (
  {
    endpoint,
    groups: { createGroup, forgetIdleConsumers },
    regions: { recentRegions, scanRegions },
    regionsRefreshMs,
    shared,
    streams: { resultsKey, resultsPrefix }
  }: {
    /** Acks and claims go on the transport's shared connection; the blocking reads on one of their own. */
    readonly shared: Redis
    readonly endpoint: Endpoint
    readonly streams: StreamKeys
    readonly groups: ConsumerGroups
    readonly regions: KnownRegions
    /** How long a read waits at most when there is no stream yet, before looking again. */
    readonly regionsRefreshMs: number
  },
  name: string
): Effect.Effect<Consumer<RegionMessage>, QueueError, Scope.Scope> =>
  Effect.gen(function*() {
    const reader = yield* connect(endpoint, `status-page-${ingestGroup}-${name}`, cut, false)
    /** The regions whose stream has the group: the ones read. */
    const joined = new Set<string>()
    const claimCursors = new Map<string, string>()

    /** Creates the group on the streams of `found` not joined yet; a stream gone meanwhile is left out. */
    const join = (found: ReadonlySet<string>) =>
      Effect.forEach(
        [...found].filter((region) => !joined.has(region)),
        (region) =>
          createGroup(resultsKey(region), ingestGroup, "0", false).pipe(
            Effect.andThen(forgetIdleConsumers(resultsKey(region), ingestGroup, name)),
            Effect.andThen(Effect.sync(() => joined.add(region))),
            Effect.catchIf((error) => error.message.includes("requires the key to exist"), () => Effect.void)
          ),
        { discard: true }
      )

    const byRegion = (ids: ReadonlyArray<string>) => {
      const grouped = new Map<string, Array<string>>()
      for (const id of ids) {
        const slash = id.indexOf("/")
        const region = id.slice(0, slash)
        const list = grouped.get(region)
        if (list === undefined) {
          grouped.set(region, [id.slice(slash + 1)])
        } else list.push(id.slice(slash + 1))
      }
      return grouped
    }

    const ackIn = (region: string) => (entryIds: ReadonlyArray<string>) =>
      entryIds.length === 0
        ? Effect.void
        : call(
          `acknowledging on ${resultsKey(region)}`,
          () => shared.xack(resultsKey(region), ingestGroup, ...entryIds)
        ).pipe(Effect.asVoid)

    const ack = (ids: ReadonlyArray<string>) =>
      Effect.forEach(byRegion(ids), ([region, entryIds]) => ackIn(region)(entryIds), { discard: true })

    const deliveriesOf = (region: string, entries: ReadonlyArray<StreamEntry | null>) =>
      Effect.map(
        decodeEntries(resultsKey(region), resultCodec, entries, ackIn(region)),
        (decoded) =>
          decoded.map(({ id, value }): Delivery<RegionMessage> => ({
            id: `${region}/${id}`,
            value: { region, message: value },
            // An entry's id starts with the Redis server's time when it took the entry in.
            receivedAt: Number.parseInt(id, 10)
          }))
      )

    // A stream or its group was deleted under us (e.g. FLUSHALL, a retired region): look again.
    const rejoinOnNoGroup = <B>(empty: B) => (self: Effect.Effect<B, QueueError>) =>
      Effect.catchIf(self, (error) => error.message.includes("NOGROUP"), () =>
        Effect.sync(() => joined.clear()).pipe(
          Effect.andThen(Effect.flatMap(scanRegions, (found) => join(found.existing))),
          Effect.as(empty)
        ))

    const read = (max: number, blockMs: number) =>
      Effect.gen(function*() {
        yield* join((yield* recentRegions).existing)
        const streams = [...joined]
        if (streams.length === 0) {
          // Nothing to read before a probe's first heartbeat: wait as a blocking read would
          // (in real time, as Redis does, whatever the Clock), then look again.
          yield* realSleep(Math.min(blockMs, regionsRefreshMs))
          return []
        }
        const count = Math.max(1, Math.ceil(max / streams.length))
        const reply = yield* call(`reading ${resultsPrefix}* as ${ingestGroup}/${name}`, () =>
          reader.xreadgroup(
            "GROUP",
            ingestGroup,
            name,
            "COUNT",
            count,
            "BLOCK",
            blockMs,
            "STREAMS",
            ...streams.map(resultsKey),
            ...streams.map(() => ">")
          ) as Promise<Array<[string, Array<StreamEntry>]> | null>)
        const deliveries: Array<Delivery<RegionMessage>> = []
        for (const [key, entries] of reply ?? []) {
          deliveries.push(...(yield* deliveriesOf(key.slice(resultsPrefix.length), entries)))
        }
        return deliveries
      }).pipe(rejoinOnNoGroup<ReadonlyArray<Delivery<RegionMessage>>>([]))

    const claimStale = (max: number, minIdleMs: number) =>
      Effect.gen(function*() {
        const claimed: Array<Delivery<RegionMessage>> = []
        for (const region of joined) {
          if (claimed.length >= max) break
          const [next, entries] = yield* call(`claiming stale entries of ${resultsKey(region)}`, () =>
            shared.xautoclaim(
              resultsKey(region),
              ingestGroup,
              name,
              minIdleMs,
              claimCursors.get(region) ?? "0-0",
              "COUNT",
              max - claimed.length
            ) as Promise<[string, Array<StreamEntry | null>, Array<string>?]>)
          claimCursors.set(region, next)
          claimed.push(...(yield* deliveriesOf(region, entries)))
        }
        return claimed
      }).pipe(rejoinOnNoGroup<ReadonlyArray<Delivery<RegionMessage>>>([]))

    const keepAlive = (ids: ReadonlyArray<string>) =>
      Effect.forEach(byRegion(ids), ([region, entryIds]) =>
        call(`refreshing pending entries of ${resultsKey(region)}`, () =>
          shared.xclaim(resultsKey(region), ingestGroup, name, 0, ...entryIds, "JUSTID")), { discard: true })

    // The regions as they are now, not as a few seconds ago: nothing published before joining is left out.
    yield* join((yield* scanRegions).existing)
    return { name, read, claimStale, keepAlive, ack } satisfies Consumer<RegionMessage>
  })
