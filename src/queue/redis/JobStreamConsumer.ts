/**
 * The probe's side: a member of its region's jobs group (XREADGROUP, XAUTOCLAIM, XCLAIM, XACK).
 * Most of it is about handing jobs over between the probes of a region faster than the claim
 * time: taking back what a previous run of the same name held, taking over what a silent
 * sibling holds, and handing back what it holds when it leaves.
 */
import { Effect } from "effect"
import type { Redis } from "ioredis"

import type { Delivery, QueueError } from "../JobTransport.js"
import type { ConsumerGroups } from "./ConsumerGroups.js"
import { call, connect, type Endpoint, queueError, quitOrCut, readerCloseMs } from "./RedisConnection.js"
import { decodeEntries, type StreamCodec, type StreamEntry } from "./StreamCodec.js"

/** An entry of XPENDING's extended form: id, consumer, ms since delivered, deliveries. */
type PendingEntry = [id: string, consumer: string, idleMs: number, deliveries: number]

/**
 * How idle a handed-back entry is made (XCLAIM IDLE): longer than any claim time, so a sibling's
 * next XAUTOCLAIM takes it.
 */
const handBackIdleMs = 30 * 24 * 60 * 60 * 1000
/** Pending entries listed per XPENDING when leaving. */
const leaveBatch = 1000

/**
 * A member of `group` on the one stream `key`: a probe's, on its region's jobs (JobConsumer).
 * Its scope's end hands back what it holds, or leaves the group when it holds nothing.
 */
export const jobStreamConsumer = <A>(
  { endpoint, groups: { consumersOf, createGroup, forgetIdleConsumers }, shared }: {
    /** Acks, claims and listings go on the transport's shared connection; the blocking reads on one of their own. */
    readonly shared: Redis
    readonly endpoint: Endpoint
    readonly groups: ConsumerGroups
  },
  key: string,
  group: string,
  from: "$" | "0",
  name: string,
  format: StreamCodec<A>
) =>
  Effect.gen(function*() {
    yield* createGroup(key, group, from)
    yield* forgetIdleConsumers(key, group, name)
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    let claimCursor = "0-0"
    /** Where reading this name's own pending entries goes on from; undefined once all are read. */
    let ownCursor: string | undefined = "0-0"
    /** Claimed while the own entries are read: delivered already, not to be delivered again. */
    const claimedMeanwhile = new Set<string>()
    /** Whether the reader closed with QUIT: no read of it can be served any more. */
    let readerClosed = false
    /** Whether this probe's Redis user may not run XPENDING (an ACL older than this release). */
    let pendingRefused = false
    /** When (real time, before asking) the last XINFO CONSUMERS found nothing pending in the group. */
    let nothingPendingAt: number | undefined

    const ack = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.void
        : call(`acknowledging on ${key}`, () => shared.xack(key, group, ...ids)).pipe(Effect.asVoid)

    /** Keeps `ids` pending under this name but idle long ago: a sibling's next claim takes them. */
    const handBack = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ?
        Effect.void :
        call(
          `handing back entries of ${key}/${group}`,
          () => shared.xclaim(key, group, name, 0, ...ids, "IDLE", handBackIdleMs, "JUSTID")
        ).pipe(Effect.asVoid)

    /** This consumer's pending entries, `leaveBatch` at a time. */
    const held = Effect.gen(function*() {
      const ids: Array<string> = []
      let start = "-"
      for (;;) {
        const page = yield* call(
          `listing the pending entries of ${group}/${name} on ${key}`,
          () => shared.xpending(key, group, start, "+", leaveBatch, name) as Promise<Array<PendingEntry>>
        )
        ids.push(...page.map(([id]) => id))
        if (page.length < leaveBatch) return ids
        start = `(${page[page.length - 1]![0]}`
      }
    })

    // Added before the reader's connection, so it runs once that has closed: no read is then
    // in progress, and none can hand this consumer entries while it leaves.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const ids = yield* held
        if (ids.length > 0) {
          yield* handBack(ids)
          yield* Effect.logInfo("handed back jobs on leaving").pipe(
            Effect.annotateLogs({ stream: key, group, consumer: name, count: ids.length })
          )
        } else if (readerClosed) {
          // Deleting a consumer drops what it holds: only with nothing held, and no read to come.
          yield* call(`leaving ${key}/${group}`, () => shared.xgroup("DELCONSUMER", key, group, name))
        }
      }).pipe(
        Effect.timeout(readerCloseMs),
        Effect.catch((error) =>
          Effect.logWarning("leaving the consumer group failed; a sibling claims what is left").pipe(
            Effect.annotateLogs({ stream: key, group, consumer: name, error: error.message })
          )
        )
      )
    )
    // Dedicated: a blocking XREADGROUP holds its connection until it returns. Closed with QUIT,
    // which Redis answers after the read in progress (its reply handed back below).
    const reader = yield* connect(
      endpoint,
      `status-page-${group}-${name}`,
      (redis) => quitOrCut(redis).pipe(Effect.map((quitted) => (readerClosed = quitted))),
      false
    )

    // The stream or group was deleted under us (e.g. FLUSHALL): make it again and go on.
    const recreateOnNoGroup = <B>(empty: B) => (self: Effect.Effect<B, QueueError>) =>
      Effect.catchIf(
        self,
        (error) => error.message.includes("NOGROUP"),
        () => Effect.as(createGroup(key, group, from), empty)
      )

    /**
     * New entries. A read interrupted while Redis still blocks may be served afterwards: what
     * it brings then is handed back at once, for a sibling to claim.
     */
    const readNew = (max: number, blockMs: number) =>
      Effect.callback<Array<[string, Array<StreamEntry>]> | null, QueueError>((resume) => {
        let abandoned = false
        ;(reader.xreadgroup("GROUP", group, name, "COUNT", max, "BLOCK", blockMs, "STREAMS", key, ">") as Promise<
          Array<[string, Array<StreamEntry>]> | null
        >).then(
          (reply) => {
            if (!abandoned) {
              return resume(Effect.succeed(reply))
            }
            const ids = (reply?.[0]?.[1] ?? []).map(([id]) => id)
            if (ids.length > 0) {
              runFork(
                handBack(ids).pipe(
                  Effect.catch((error) =>
                    Effect.logWarning("handing back a read's late entries failed").pipe(
                      Effect.annotateLogs({ stream: key, count: ids.length, error: error.message })
                    )
                  )
                )
              )
            }
          },
          (cause) => {
            if (!abandoned) {
              resume(Effect.fail(queueError(`reading ${key} as ${group}/${name}`, cause)))
            }
          }
        )
        return Effect.sync(() => (abandoned = true))
      }).pipe(Effect.flatMap((reply) => decodeEntries(key, format, reply?.[0]?.[1] ?? [], ack)))

    /** Entries left pending under this name (by a previous run of it), oldest first, then none. */
    const readOwn = (max: number) =>
      call(`reading what ${group}/${name} holds on ${key}`, () =>
        shared.xreadgroup("GROUP", group, name, "COUNT", max, "STREAMS", key, ownCursor!) as Promise<
          Array<[string, Array<StreamEntry>]> | null
        >).pipe(
          Effect.flatMap((reply) => {
            const entries = reply?.[0]?.[1] ?? []
            ownCursor = entries.length < max ? undefined : entries[entries.length - 1]![0]
            const fresh = entries.filter(([id]) =>
              !claimedMeanwhile.has(id)
            )
            if (ownCursor === undefined) {
              claimedMeanwhile.clear()
            }
            return decodeEntries(key, format, fresh, ack)
          })
        )

    const read = (max: number, blockMs: number) =>
      Effect.suspend(() =>
        ownCursor === undefined ?
          readNew(max, blockMs) :
          Effect.flatMap(readOwn(max), (own) =>
            own.length === 0 && ownCursor === undefined ? readNew(max, blockMs) : Effect.succeed(own))
      ).pipe(recreateOnNoGroup<ReadonlyArray<Delivery<A>>>([]))

    /** Notes what a claim delivered while the own entries are still being read. */
    const delivered = (deliveries: ReadonlyArray<Delivery<A>>) => {
      if (ownCursor !== undefined) {
        for (const { id } of deliveries) {
          claimedMeanwhile.add(id)
        }
      }
      return deliveries
    }

    /**
     * Right after a `claimFromSilent` whose XINFO CONSUMERS found nothing pending in the group,
     * less than `minIdleMs` ago, there is nothing to claim and no XAUTOCLAIM is sent (an idle
     * probe claims every second): an entry idle that long now was pending then. An entry
     * delivered since and handed back at once (XCLAIM IDLE) waits for the next claim.
     */
    const claimStale = (max: number, minIdleMs: number) =>
      Effect.suspend(() => {
        const asked = nothingPendingAt
        nothingPendingAt = undefined
        return asked !== undefined && Date.now() - asked < minIdleMs ?
          Effect.succeed<ReadonlyArray<Delivery<A>>>([]) :
          call(`claiming stale entries of ${key}/${group}`, () =>
            shared.xautoclaim(key, group, name, minIdleMs, claimCursor, "COUNT", max) as Promise<
              [string, Array<StreamEntry | null>, Array<string>?]
            >).pipe(
              Effect.flatMap(([next, entries]) => {
                claimCursor = next
                return decodeEntries(key, format, entries, ack)
              }),
              Effect.map(delivered),
              recreateOnNoGroup<ReadonlyArray<Delivery<A>>>([])
            )
      })

    const claimFromSilent = (max: number, silentMs: number) =>
      pendingRefused ? Effect.succeed([]) : Effect.gen(function*() {
        const askedAt = Date.now()
        const consumers = yield* consumersOf(key, group)
        const anyPending = consumers.some((consumer) =>
          consumer.pending > 0
        )
        nothingPendingAt = anyPending ? undefined : askedAt
        const silent = consumers.filter((sibling) =>
          sibling.name !== name && sibling.pending > 0 && sibling.idleMs >= silentMs
        )
        const claimed: Array<Delivery<A>> = []
        for (const sibling of silent) {
          if (claimed.length >= max) {
            break
          }
          // Its entries idle as long as it has been silent: none it refreshed meanwhile.
          const entries = yield* call(`listing the entries ${sibling.name} holds on ${key}`, () =>
            shared.xpending(key, group, "IDLE", silentMs, "-", "+", max - claimed.length, sibling.name) as Promise<
              Array<PendingEntry>
            >)
          if (entries.length === 0) {
            continue
          }
          // The same bound again: a sibling that claimed them first made them fresh.
          const taken = yield* call(`claiming the entries ${sibling.name} holds on ${key}`, () =>
            shared.xclaim(
              key,
              group,
              name,
              silentMs,
              ...entries.map(([id]) =>
                id
              )
            ) as Promise<
              Array<StreamEntry | null>
            >)
          if (taken.length === 0) {
            continue
          }
          yield* Effect.logInfo("took over the jobs of a silent sibling").pipe(
            Effect.annotateLogs({
              stream: key,
              sibling: sibling.name,
              silentMs: sibling.idleMs,
              count: taken.length
            })
          )
          claimed.push(...(yield* decodeEntries(key, format, taken, ack)))
        }
        return delivered(claimed)
      }).pipe(
        recreateOnNoGroup<ReadonlyArray<Delivery<A>>>([]),
        Effect.catchIf((error) =>
          error.message.includes("NOPERM"), (error) =>
          Effect.sync(() => (pendingRefused = true)).pipe(
            Effect.andThen(
              Effect.logWarning(
                "this probe's Redis user may not run XPENDING: a dead sibling's jobs wait QUEUE_CLAIM_IDLE_MS; add +xpending to its ACL rules (docs/operations.md)"
              ).pipe(Effect.annotateLogs({ stream: key, error: error.message }))
            ),
            Effect.as([])
          ))
      )

    const keepAlive = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ?
        Effect.void :
        call(
          `refreshing pending entries of ${key}/${group}`,
          () =>
            shared.xclaim(key, group, name, 0, ...ids, "JUSTID")
        ).pipe(Effect.asVoid)

    return { name, read, claimStale, claimFromSilent, keepAlive, ack }
  })
