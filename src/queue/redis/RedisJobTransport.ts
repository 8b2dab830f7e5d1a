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
 * - A `redis+sentinel://` URL (`rediss+sentinel://` over TLS) finds the master through Redis
 *   Sentinel, at every connection and again after a failover (src/runtime/RedisEndpoint.ts);
 *   every connection, the blocking readers' too, follows the new master by itself.
 * - An entry longer than `maxEntryLength` is acknowledged and dropped without being parsed:
 *   anyone able to write a stream may XADD up to Redis' `proto-max-bulk-len` (512 MB by
 *   default), which JSON.parse would hold the process on.
 *
 * The parts are in `./redis/`, one module each: `RedisConnection` (connections, TLS, `call`),
 * `StreamCodec` (entries' encoding, decoding and size limits), `StreamKeys` (stream names),
 * `KnownRegions` (SCAN of the results streams), `ConsumerGroups` (XGROUP, XINFO CONSUMERS),
 * `StreamPublisher` (XADD), `JobStreamConsumer` (a probe's), `ResultStreamsConsumer` (ingest's)
 * and `StreamBacklog` (XLEN, XPENDING for the metrics). This module composes them.
 */
import { Effect, Layer, Option, Redacted } from "effect"

import type { ProbeReport } from "../../domain/CheckJob.js"
import { RedisSentinelPassword } from "../../runtime/RedisEndpoint.js"
import { JobTransport, resultConsumerOf } from "../JobTransport.js"
import { makeConsumerGroups } from "./ConsumerGroups.js"
import { jobStreamConsumer } from "./JobStreamConsumer.js"
import { makeKnownRegions } from "./KnownRegions.js"
import { connect, type Endpoint, parseEndpoint, readRedisCa } from "./RedisConnection.js"
import { resultStreamsConsumer } from "./ResultStreamsConsumer.js"
import { streamBacklog } from "./StreamBacklog.js"
import { jobCodec } from "./StreamCodec.js"
import { makeStreamKeys } from "./StreamKeys.js"
import { makeStreamPublisher } from "./StreamPublisher.js"

export { connectionOptions, readRedisCa, RedisCaFile } from "./RedisConnection.js"
export { decodeResultEntry, maxEntryLength } from "./StreamCodec.js"

export interface RedisTransportOptions {
  /** `redis://`, `rediss://`, or a Sentinel URL, `redis+sentinel://[user:password@]host:port,…/<master name>`. */
  readonly url: string | Redacted.Redacted<string>
  /** The sentinels' own password (their `requirepass`), for a Sentinel URL. */
  readonly sentinelPassword?: string | Redacted.Redacted<string>
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

export const make = (options: RedisTransportOptions) =>
  Effect.gen(function*() {
    const reveal = (text: string | Redacted.Redacted<string>) => Redacted.isRedacted(text) ? Redacted.value(text) : text
    const redis = yield* parseEndpoint(reveal(options.url))
    const sentinelPassword = options.sentinelPassword === undefined ? undefined : reveal(options.sentinelPassword)
    const streams = makeStreamKeys(options.prefix ?? "")
    const jobsMaxLength = options.jobsMaxLength ?? 100_000
    const resultsMaxLength = options.resultsMaxLength ?? 250_000
    const forgetConsumersIdleMs = options.forgetConsumersIdleMs ?? 60 * 60 * 1000
    const regionsRefreshMs = options.regionsRefreshMs ?? 2_000
    const regionsForgetMs = options.regionsForgetMs ?? 60_000
    const endpoint: Endpoint = { redis, ca: options.ca, sentinelPassword, readyCheck: options.readyCheck ?? true }
    const shared = yield* connect(endpoint, "status-page-queue")
    const scope = yield* Effect.scope

    const groups = makeConsumerGroups({ shared, forgetConsumersIdleMs })
    const regions = makeKnownRegions({ shared, streams, scope, regionsRefreshMs, regionsForgetMs })
    const { publishJobs, publishMessages, publishRuns } = makeStreamPublisher({
      shared,
      streams,
      regions,
      jobsMaxLength,
      resultsMaxLength
    })

    return JobTransport.of({
      publishJobs,
      publishRuns,
      jobConsumer: (region, name) =>
        jobStreamConsumer({ shared, endpoint, groups }, streams.jobsKey(region), region, "$", name, jobCodec),
      publishResults: (reports: ReadonlyArray<ProbeReport>) =>
        publishMessages(reports.map((report) => ({ region: report.region, message: report }))),
      publishHeartbeat: (region, heartbeat) => publishMessages([{ region, message: heartbeat }]),
      resultConsumer: (name) =>
        Effect.map(
          resultStreamsConsumer({ shared, endpoint, streams, groups, regions, regionsRefreshMs }, name),
          resultConsumerOf
        ),
      knownRegions: () => Effect.map(regions.scanRegions, (found) => found.known),
      backlog: () => streamBacklog({ shared, streams, regions })
    })
  })

export const layer = (options: RedisTransportOptions) => Layer.effect(JobTransport, make(options))

/** The transport at `url` with the prefix given, REDIS_CA_FILE and REDIS_SENTINEL_PASSWORD from the configuration. */
export const layerConfig = (options: Omit<RedisTransportOptions, "ca" | "sentinelPassword">) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const ca = yield* readRedisCa
      const sentinelPassword = yield* RedisSentinelPassword
      return layer({
        ...options,
        ...(ca === undefined ? {} : { ca }),
        ...Option.match(sentinelPassword, {
          onNone: () => ({}),
          onSome: (password) => ({ sentinelPassword: password })
        })
      })
    })
  )
