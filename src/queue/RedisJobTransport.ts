/**
 * The job transport on Redis Streams (ioredis).
 *
 * - `<prefix>jobs:<region>`: the jobs of one region, read by the consumer group named after
 *   the region, created with MKSTREAM at `$` (a new group starts with the next jobs).
 * - `<prefix>results:<region>`: the results, misses and heartbeats of one region, read by the
 *   group `ingest`, created at `0` when ingest first sees the stream so nothing published
 *   before is missed. A probe's first heartbeat creates it; only the region's Redis user may
 *   write it (docs/operations.md), so the stream a report came on is its region.
 * - The known regions are the results streams found by SCAN: looked up afresh by `publishJobs`,
 *   `knownRegions` and a joining result consumer; otherwise at most `regionsRefreshMs` old,
 *   refreshed in the background so the scheduler's tick never waits on a SCAN. A region stays
 *   known `regionsForgetMs` after its stream was last seen: after Redis restarts empty, its
 *   jobs go on being published until its probes' next heartbeat makes the stream again.
 * - Every XADD trims with `MAXLEN ~`, so the streams stay bounded even with nobody reading.
 * - Publishing, acks and claims share one auto-pipelined connection; every consumer's blocking
 *   XREADGROUP runs on a connection of its own, which a blocking command occupies whole.
 *   Ingest reads every region's results stream with one XREADGROUP.
 * - XAUTOCLAIM walks the pending list with a cursor kept between calls (per stream), so a long
 *   list of live deliveries at its head cannot hide a dead consumer's entries.
 * - A jobs consumer (`JobConsumer`) tells a silent sibling by XINFO CONSUMERS' `idle` (since its
 *   last read, claim or keep-alive; Redis 7.2's `inactive` counts only those that delivered
 *   something, so it grows while a live probe waits for jobs, and 7.0 lacks it), and takes the
 *   entries it holds idle as long (XPENDING, then XCLAIM with that bound). Its first reads are
 *   of what is pending under its own name (XREADGROUP from `0`). Its reader closes with QUIT,
 *   after the read in progress, so no read can be served afterwards; then it hands back what it
 *   holds (XCLAIM with IDLE) or, holding nothing, leaves the group (XGROUP DELCONSUMER).
 * - `rediss://` URLs connect over TLS, trusting the system's CAs plus `ca` (REDIS_CA_FILE).
 * - An entry longer than `maxEntryLength` is acknowledged and dropped without being parsed:
 *   anyone able to write a stream may XADD up to Redis' `proto-max-bulk-len` (512 MB by
 *   default), which JSON.parse would hold the process on.
 */
import { readFileSync } from "node:fs"
import { rootCertificates } from "node:tls"

import { Config, Effect, Layer, Option, Redacted, Runtime, Schema, type Scope } from "effect"
import { Redis, type RedisOptions } from "ioredis"

import { CheckJob, MissedCheck, type ProbeReport, type ScheduledRun } from "../domain/CheckJob.js"
import { CheckResult } from "../domain/CheckJob.js"
import { decodeCheckResultFast } from "../domain/decodeCheckResultFast.js"
import { ProbeHeartbeat } from "../domain/ProbeHeartbeat.js"
import { regionPattern } from "../domain/Region.js"
import {
  type Consumer,
  type Delivery,
  ingestGroup,
  JobTransport,
  type ProbeMessage,
  QueueError,
  type RegionMessage,
  resultConsumerOf
} from "./JobTransport.js"

export interface RedisTransportOptions {
  readonly url: string | Redacted.Redacted<string>
  /** Prepended to the stream names (`jobs:<region>`, `results:<region>`); lets deployments or tests share a Redis. */
  readonly prefix?: string
  /** Extra CA certificates (PEM) trusted for a `rediss://` URL, besides the system's. */
  readonly ca?: string
  /**
   * Whether a new connection waits until Redis has loaded its data (ioredis' ready check,
   * which runs INFO); default true. False for a probe: its Redis user may not run INFO.
   */
  readonly readyCheck?: boolean
  /** Approximate length each jobs stream is trimmed to (default 100,000). */
  readonly jobsMaxLength?: number
  /** Approximate length each results stream is trimmed to (default 250,000). */
  readonly resultsMaxLength?: number
  /**
   * A joining consumer removes siblings idle this long with nothing pending (default 1 hour):
   * every probe restart joins under a new name, and the dead names would pile up.
   */
  readonly forgetConsumersIdleMs?: number
  /** How old the known regions may be for the scheduler and ingest (default 2 s). */
  readonly regionsRefreshMs?: number
  /** How long a region stays known once its results stream is gone (default 1 minute). */
  readonly regionsForgetMs?: number
}

const queueError = (what: string, cause: unknown) =>
  new QueueError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

const call = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => queueError(what, cause) })

type StreamEntry = [id: string, fields: Array<string> | null]
/** An entry of XPENDING's extended form: id, consumer, ms since delivered, deliveries. */
type PendingEntry = [id: string, consumer: string, idleMs: number, deliveries: number]

/** What XINFO CONSUMERS says of one consumer of a group. */
interface ConsumerInfo {
  readonly name: string
  readonly pending: number
  /** Since its last read, claim or keep-alive (Redis 7.2: also one that found nothing). */
  readonly idleMs: number
  /** Redis 7.2: since its last read or claim that delivered something; older: `idleMs`. */
  readonly inactiveMs: number
}

/**
 * How idle a handed-back entry is made (XCLAIM IDLE): longer than any claim time, so a sibling's
 * next XAUTOCLAIM takes it.
 */
const handBackIdleMs = 30 * 24 * 60 * 60 * 1000
/** How long a leaving consumer's reader may take to close (QUIT waits for the read in progress). */
const readerCloseMs = 10_000
/** Pending entries listed per XPENDING when leaving. */
const leaveBatch = 1000

interface StreamCodec<A> {
  readonly field: string
  /** The longest payload decoded (UTF-16 code units); a longer one is dropped unread. */
  readonly maxLength: number
  readonly encode: (value: A) => string
  readonly decode: (json: string) => A | undefined
}

/**
 * `plain`: the values are their own JSON encoding (no transformation in the schema) and are
 * built valid, so JSON.stringify encodes them; Schema.encode would validate each again, which
 * costs more than the XADD. Decoding always validates: the text is parsed (as Schema.parseJson
 * does), then given to `fast` when there is one, and to the schema when `fast` gives nothing.
 * `fast` must accept only what the schema accepts, and yield the same value.
 */
const codec = <A, I>(
  field: string,
  maxLength: number,
  schema: Schema.Schema<A, I>,
  options: { readonly plain?: boolean; readonly fast?: (parsed: unknown) => A | undefined } = {}
): StreamCodec<A> => {
  const encode = options.plain === true
    ? (value: A) => JSON.stringify(value)
    : Schema.encodeSync(Schema.parseJson(schema))
  const decodeParsed = Schema.decodeUnknownOption(schema)
  const fast = options.fast
  return {
    field,
    maxLength,
    encode,
    decode: (text) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return undefined
      }
      const value = fast?.(parsed)
      if (value !== undefined) return value
      const option = decodeParsed(parsed)
      return option._tag === "Some" ? option.value : undefined
    }
  }
}

/**
 * The longest entry decoded, per field. A result, a miss or a heartbeat is a few KB at most (its
 * strings are capped; JSON escapes a character in six at worst). A job carries a monitor's
 * request: a 64 KB body, 20 headers of 1 KB, the DNS values, ~530 KB if every character were
 * escaped; only the service writes jobs, so their limit is generous.
 */
export const maxEntryLength = { job: 1024 * 1024, result: 64 * 1024 } as const

const jobCodec = codec("job", maxEntryLength.job, CheckJob, { plain: true })

/** XADDs per pipeline, and pipelines sent before the oldest must have answered. */
const pipelineSize = 1000
const pipelinesInFlight = 4
// Results, misses and heartbeats share the field `result`; a miss or a heartbeat is told apart by its `_tag`.
// Nearly every entry is a result: the hand-written decoder takes those, at under a third of the schema's cost.
const resultCodec = codec<ProbeMessage, unknown>(
  "result",
  maxEntryLength.result,
  Schema.Union(CheckResult, MissedCheck, ProbeHeartbeat) as Schema.Schema<ProbeMessage, unknown>,
  { plain: true, fast: decodeCheckResultFast }
)

/** How ingest decodes a results stream's entry (its `result` field): the value, or undefined when it does not decode. */
export const decodeResultEntry = (text: string): ProbeMessage | undefined => resultCodec.decode(text)

/** A wait in real time: what a blocking read waits, which the TestClock does not move. */
const realSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** `*`, `?`, `[`, `]` and `\` match themselves in a SCAN pattern once escaped. */
const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, "\\$&")

/** ioredis' options for `url`: TLS with the system's CAs and `ca` when it says `rediss://`. */
export const connectionOptions = (url: string, ca: string | undefined): RedisOptions =>
  /^rediss:\/\//i.test(url)
    ? { tls: ca === undefined ? {} : { ca: [...rootCertificates, ca] } }
    : {}

/** How every connection of one transport is made: where, and whether it runs the ready check. */
interface Endpoint {
  readonly url: string
  readonly ca: string | undefined
  readonly readyCheck: boolean
}

/** Closes a connection: QUIT, or cut when that fails. */
const quit = (redis: Redis) => Effect.promise(() => redis.quit().then(() => undefined, () => redis.disconnect()))
/** Cuts a connection: what a blocking one needs, which QUIT would make wait out its BLOCK. */
const cut = (redis: Redis) => Effect.sync(() => redis.disconnect())
/**
 * QUIT, which Redis answers after the command in progress (a blocking read waits out its BLOCK),
 * within `readerCloseMs`; else cut. Whether QUIT was answered: no command of it can run later.
 */
const quitOrCut = (redis: Redis) =>
  Effect.promise(() => redis.quit().then(() => true, () => false)).pipe(
    Effect.timeout(readerCloseMs),
    Effect.orElseSucceed(() => false),
    Effect.tap((quitted) => quitted ? Effect.void : cut(redis))
  )

/**
 * A connection for the scope, closed with `close` (QUIT by default). `pipelined`: commands sent
 * in the same tick go out together (auto-pipelining); a blocking reader's one command at a time
 * would only pay for a pipeline object per read.
 */
const connect = (
  { ca, readyCheck, url }: Endpoint,
  name: string,
  close: (redis: Redis) => Effect.Effect<void> = quit,
  pipelined = true
) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const redis = new Redis(url, {
        ...connectionOptions(url, ca),
        enableReadyCheck: readyCheck,
        lazyConnect: true,
        enableAutoPipelining: pipelined,
        connectionName: name
      })
      // Failed commands report their own errors; this keeps ioredis from printing every reconnect attempt.
      // The last one says why a connection failed (a TLS certificate, a refused port), which
      // `connect` itself reduces to "Connection is closed".
      let lastError: unknown
      redis.on("error", (error) => (lastError = error))
      yield* call(`connecting to Redis (${name})`, () =>
        redis.connect().catch((error: unknown) => {
          throw lastError ?? error
        })).pipe(
          Effect.tapError(() => Effect.sync(() => redis.disconnect()))
        )
      return redis
    }),
    close
  )

export const make = (options: RedisTransportOptions) =>
  Effect.gen(function*() {
    const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const prefix = options.prefix ?? ""
    const jobsKey = (region: string) => `${prefix}jobs:${region}`
    const resultsPrefix = `${prefix}results:`
    const resultsKey = (region: string) => `${resultsPrefix}${region}`
    const jobsMaxLength = options.jobsMaxLength ?? 100_000
    const resultsMaxLength = options.resultsMaxLength ?? 250_000
    const forgetConsumersIdleMs = options.forgetConsumersIdleMs ?? 60 * 60 * 1000
    const regionsRefreshMs = options.regionsRefreshMs ?? 2_000
    const regionsForgetMs = options.regionsForgetMs ?? 60_000
    const endpoint: Endpoint = { url, ca: options.ca, readyCheck: options.readyCheck ?? true }
    const shared = yield* connect(endpoint, "status-page-queue")
    const scope = yield* Effect.scope

    const createGroup = (key: string, group: string, from: "$" | "0", makeStream = true) =>
      call(`creating consumer group ${group} on ${key}`, () =>
        (makeStream ? shared.xgroup("CREATE", key, group, from, "MKSTREAM") : shared.xgroup("CREATE", key, group, from))
          .catch((error: Error) => {
            if (!error.message.startsWith("BUSYGROUP")) {
              throw error
            }
          })).pipe(Effect.asVoid)

    // Known regions: the results streams. The regions are real time, not the Clock: they follow Redis.
    interface Regions {
      /** The regions whose results stream exists: the streams ingest reads. */
      readonly existing: ReadonlySet<string>
      /** Those and the ones seen within `regionsForgetMs`: where jobs for every region go. */
      readonly known: ReadonlySet<string>
      readonly at: number
    }
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
          if (regionPattern.test(region)) {
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
          Effect.catchAll((error) =>
            Effect.logWarning("listing the known regions failed").pipe(Effect.annotateLogs({ error: error.message }))
          ),
          Effect.ensuring(Effect.sync(() => (refreshing = false))),
          Effect.forkIn(scope),
          Effect.as(regions)
        )
      }
      return Effect.succeed(regions)
    })

    /**
     * XADDs `count` entries (`entry(i)` is the key and payload of the i-th) in order, in
     * pipelines of `pipelineSize` with up to `pipelinesInFlight` of them sent at once, so Redis
     * works on one while the next is built. Fails with the first error after every pipeline
     * sent has answered.
     */
    const xaddAll = async (
      maxLength: number,
      field: string,
      count: number,
      entry: (i: number) => readonly [key: string, payload: string]
    ) => {
      const inFlight: Array<Promise<void>> = []
      let failure: { readonly error: unknown } | undefined
      const settle = (replies: Promise<Array<[Error | null, unknown]> | null>) =>
        replies.then((all) => {
          const failed = all?.find(([error]) =>
            error !== null
          )
          if (failed !== undefined) throw failed[0]
        }).catch((error: unknown) => {
          failure ??= { error }
        })
      try {
        for (let start = 0; start < count && failure === undefined; start += pipelineSize) {
          if (inFlight.length >= pipelinesInFlight) await inFlight.shift()
          const pipeline = shared.pipeline()
          const end = Math.min(count, start + pipelineSize)
          for (let i = start; i < end; i++) {
            const [key, payload] = entry(i)
            pipeline.xadd(key, "MAXLEN", "~", maxLength, "*", field, payload)
          }
          inFlight.push(settle(pipeline.exec()))
        }
      } finally {
        await Promise.all(inFlight)
      }
      if (failure !== undefined) throw failure.error
    }

    /**
     * Publishes `count` jobs, each to the regions it names or else to `known`; `encode(i)` is
     * the JSON of the i-th, computed once whatever the number of its regions.
     */
    const publishToRegions = (
      count: number,
      regionsOf: (i: number) => ReadonlyArray<string> | null | undefined,
      encode: (i: number) => string,
      known: ReadonlySet<string>
    ) => {
      const keys: Array<string> = []
      const payloads: Array<string> = []
      for (let i = 0; i < count; i++) {
        const named = regionsOf(i)
        const targets = named ?? known
        if ((named?.length ?? known.size) === 0) continue
        const payload = encode(i)
        for (const region of targets) {
          keys.push(jobsKey(region))
          payloads.push(payload)
        }
      }
      return keys.length === 0
        ? Effect.void
        : call(
          `publishing to ${prefix}jobs:*`,
          () => xaddAll(jobsMaxLength, jobCodec.field, keys.length, (i) => [keys[i]!, payloads[i]!])
        )
    }

    const publishJobs = (jobs: ReadonlyArray<CheckJob>) =>
      jobs.length === 0 ? Effect.void : Effect.flatMap(
        jobs.some((job) => job.regions === undefined || job.regions === null)
          ? Effect.map(scanRegions, (found) => found.known)
          : Effect.succeed<ReadonlySet<string>>(new Set()),
        (known) => publishToRegions(jobs.length, (i) => jobs[i]!.regions, (i) => jobCodec.encode(jobs[i]!), known)
      )

    /** The scheduler's path: each job's JSON comes straight from its template, no CheckJob built. */
    const publishRuns = (runs: ReadonlyArray<ScheduledRun>) =>
      runs.length === 0 ? Effect.void : Effect.flatMap(recentRegions, ({ known }) =>
        publishToRegions(
          runs.length,
          (i) => runs[i]!.template.check.regions,
          (i) => runs[i]!.template.encode(runs[i]!.scheduledAt, runs[i]!.traceparent),
          known
        ))

    const publishMessages = (messages: ReadonlyArray<RegionMessage>) =>
      messages.length === 0
        ? Effect.void
        : call(`publishing to ${resultsPrefix}*`, () =>
          xaddAll(resultsMaxLength, resultCodec.field, messages.length, (i) => [
            resultsKey(messages[i]!.region),
            resultCodec.encode(messages[i]!.message)
          ]))

    /** XINFO CONSUMERS of `group` on `key`. */
    const consumersOf = (key: string, group: string) =>
      call(
        `listing consumers of ${key}/${group}`,
        () => shared.xinfo("CONSUMERS", key, group) as Promise<Array<Array<string | number>>>
      ).pipe(Effect.map((consumers) =>
        consumers.map((fields): ConsumerInfo => {
          const info = new Map<string, string | number>()
          for (let i = 0; i + 1 < fields.length; i += 2) {
            info.set(String(fields[i]), fields[i + 1]!)
          }
          const idleMs = Number(info.get("idle"))
          return {
            name: String(info.get("name")),
            pending: Number(info.get("pending")),
            idleMs,
            inactiveMs: info.has("inactive") ? Number(info.get("inactive")) : idleMs
          }
        })
      ))

    /** Deletes long-idle consumers without pending entries; one with entries is left for a claim. */
    const forgetIdleConsumers = (key: string, group: string, self: string) =>
      consumersOf(key, group).pipe(
        Effect.flatMap((consumers) => {
          const idle = consumers.flatMap(({ inactiveMs, name, pending }) =>
            name !== self && pending === 0 && inactiveMs >= forgetConsumersIdleMs ? [name] : []
          )
          return Effect.forEach(
            idle,
            (name) => call(`removing consumer ${name}`, () => shared.xgroup("DELCONSUMER", key, group, name)),
            { discard: true }
          ).pipe(
            Effect.tap(() =>
              idle.length > 0
                ? Effect.logInfo("removed idle consumers").pipe(
                  Effect.annotateLogs({ stream: key, group, consumers: idle.join(",") })
                )
                : Effect.void
            )
          )
        }),
        Effect.catchAll((error) =>
          Effect.logWarning("could not remove idle consumers").pipe(Effect.annotateLogs({ error: error.message }))
        )
      )

    /**
     * Decodes the entries of `key`; undecodable, oversized or trimmed ones are acknowledged with
     * `ack` so they never come back, and logged: a probe's bug, or a forgery. An oversized one
     * is never parsed.
     */
    const decodeEntries = <A>(
      key: string,
      format: StreamCodec<A>,
      entries: ReadonlyArray<StreamEntry | null>,
      ack: (ids: ReadonlyArray<string>) => Effect.Effect<void, QueueError>
    ): Effect.Effect<Array<{ readonly id: string; readonly value: A }>, QueueError> =>
      // An idle probe's every read: nothing to decode, nothing to build.
      entries.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
        const decoded: Array<{ readonly id: string; readonly value: A }> = []
        const undecodable: Array<string> = []
        const oversized: Array<{ readonly id: string; readonly length: number }> = []
        for (const entry of entries) {
          if (entry === null) {
            continue
          }
          const [id, fields] = entry
          const index = fields === null ? -1 : fields.indexOf(format.field)
          const raw = index >= 0 && index % 2 === 0 ? fields![index + 1] : undefined
          if (raw !== undefined && raw.length > format.maxLength) {
            oversized.push({ id, length: raw.length })
            continue
          }
          const value = raw === undefined ? undefined : format.decode(raw)
          if (value === undefined) {
            undecodable.push(id)
          } else decoded.push({ id, value })
        }
        if (oversized.length > 0) {
          yield* Effect.logWarning("dropping oversized stream entries unread").pipe(
            Effect.annotateLogs({
              stream: key,
              count: oversized.length,
              maxLength: format.maxLength,
              entries: oversized.slice(0, 20).map(({ id, length }) => `${id} (${length})`).join(",")
            })
          )
        }
        if (undecodable.length > 0) {
          yield* Effect.logWarning("dropping undecodable stream entries").pipe(
            Effect.annotateLogs({ stream: key, count: undecodable.length, ids: undecodable.slice(0, 20).join(",") })
          )
        }
        if (oversized.length + undecodable.length > 0) {
          yield* ack([...oversized.map(({ id }) => id), ...undecodable])
        }
        return decoded
      })

    /**
     * A member of `group` on the one stream `key`: a probe's, on its region's jobs (JobConsumer).
     * Its scope's end hands back what it holds, or leaves the group when it holds nothing.
     */
    const consumer = <A>(key: string, group: string, from: "$" | "0", name: string, format: StreamCodec<A>) =>
      Effect.gen(function*() {
        yield* createGroup(key, group, from)
        yield* forgetIdleConsumers(key, group, name)
        const runtime = yield* Effect.runtime<never>()
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
            call(`handing back entries of ${key}/${group}`, () =>
              shared.xclaim(key, group, name, 0, ...ids, "IDLE", handBackIdleMs, "JUSTID")).pipe(Effect.asVoid)

        /** This consumer's pending entries, `leaveBatch` at a time. */
        const held = Effect.gen(function*() {
          const ids: Array<string> = []
          let start = "-"
          for (;;) {
            const page = yield* call(`listing the pending entries of ${group}/${name} on ${key}`, () =>
              shared.xpending(key, group, start, "+", leaveBatch, name) as Promise<Array<PendingEntry>>)
            ids.push(...page.map(([id]) =>
              id
            ))
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
            Effect.catchAll((error) =>
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
          Effect.catchIf(self, (error) =>
            error.message.includes("NOGROUP"), () =>
            Effect.as(createGroup(key, group, from), empty))

        /**
         * New entries. A read interrupted while Redis still blocks may be served afterwards: what
         * it brings then is handed back at once, for a sibling to claim.
         */
        const readNew = (max: number, blockMs: number) =>
          Effect.async<Array<[string, Array<StreamEntry>]> | null, QueueError>((resume) => {
            let abandoned = false
            ;(reader.xreadgroup("GROUP", group, name, "COUNT", max, "BLOCK", blockMs, "STREAMS", key, ">") as Promise<
              Array<[string, Array<StreamEntry>]> | null
            >).then(
              (reply) => {
                if (!abandoned) {
                  return resume(Effect.succeed(reply))
                }
                const ids = (reply?.[0]?.[1] ?? []).map(([id]) =>
                  id
                )
                if (ids.length > 0) {
                  Runtime.runFork(runtime)(
                    handBack(ids).pipe(
                      Effect.catchAll((error) =>
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
                Effect.zipRight(
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

    /**
     * A member of the group `ingest` on every known region's results stream. A delivery's id is
     * `<region>/<entry id>`: entry ids of two streams may be equal.
     */
    const regionConsumer = (name: string): Effect.Effect<Consumer<RegionMessage>, QueueError, Scope.Scope> =>
      Effect.gen(function*() {
        const reader = yield* connect(endpoint, `status-page-${ingestGroup}-${name}`, cut, false)
        /** The regions whose stream has the group: the ones read. */
        const joined = new Set<string>()
        const claimCursors = new Map<string, string>()

        /** Creates the group on the streams of `found` not joined yet; a stream gone meanwhile is left out. */
        const join = (found: ReadonlySet<string>) =>
          Effect.forEach(
            [...found].filter((region) =>
              !joined.has(region)
            ),
            (region) =>
              createGroup(resultsKey(region), ingestGroup, "0", false).pipe(
                Effect.zipRight(forgetIdleConsumers(resultsKey(region), ingestGroup, name)),
                Effect.zipRight(Effect.sync(() =>
                  joined.add(region)
                )),
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
                value: { region, message: value }
              }))
          )

        // A stream or its group was deleted under us (e.g. FLUSHALL, a retired region): look again.
        const rejoinOnNoGroup = <B>(empty: B) => (self: Effect.Effect<B, QueueError>) =>
          Effect.catchIf(self, (error) => error.message.includes("NOGROUP"), () =>
            Effect.sync(() => joined.clear()).pipe(
              Effect.zipRight(Effect.flatMap(scanRegions, (found) => join(found.existing))),
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

    return JobTransport.of({
      publishJobs,
      publishRuns,
      jobConsumer: (region, name) =>
        consumer(jobsKey(region), region, "$", name, jobCodec),
      publishResults: (reports: ReadonlyArray<ProbeReport>) =>
        publishMessages(reports.map((report) => ({ region: report.region, message: report }))),
      publishHeartbeat: (region, heartbeat) =>
        publishMessages([{ region, message: heartbeat }]),
      resultConsumer: (name) =>
        Effect.map(regionConsumer(name), resultConsumerOf),
      knownRegions: () => Effect.map(scanRegions, (found) => found.known),
      backlog: () =>
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
    })
  })

export const layer = (options: RedisTransportOptions) => Layer.scoped(JobTransport, make(options))

/** REDIS_CA_FILE: a PEM file of CA certificates trusted for `rediss://` besides the system's. */
export const RedisCaFile = Config.option(Config.string("REDIS_CA_FILE"))

/** The extra CA of REDIS_CA_FILE, read once at start-up; a file that cannot be read stops the start with its path. */
export const readRedisCa = Effect.flatMap(RedisCaFile, (file) =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (path) =>
      Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: (cause) => new QueueError({ message: `REDIS_CA_FILE ${path} cannot be read: ${String(cause)}`, cause })
      })
  }))

/** The transport at `url` with the prefix given and REDIS_CA_FILE from the configuration. */
export const layerConfig = (options: Omit<RedisTransportOptions, "ca">) =>
  Layer.unwrapEffect(Effect.map(readRedisCa, (ca) => layer(ca === undefined ? options : { ...options, ca })))
