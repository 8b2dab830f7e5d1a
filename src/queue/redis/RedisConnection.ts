/**
 * Connections to Redis, one server or a master found through Redis Sentinel
 * (src/runtime/RedisEndpoint.ts), and the one way every Redis command is run (`call`): its
 * rejection becomes a QueueError saying what was being done.
 */
import { readFileSync } from "node:fs"
import { rootCertificates } from "node:tls"

import { Config, Effect, Option, Result } from "effect"
import { Redis, type RedisOptions } from "ioredis"

import { parseRedisEndpoint, type RedisEndpoint } from "../../runtime/RedisEndpoint.js"
import { QueueError } from "../JobTransport.js"

export const queueError = (what: string, cause: unknown) =>
  new QueueError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

export const call = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => queueError(what, cause) })

/** How long a leaving consumer's reader may take to close (QUIT waits for the read in progress). */
export const readerCloseMs = 10_000

/** TLS options: the system's CAs, plus `ca` (REDIS_CA_FILE) when given. */
const tlsOptions = (ca: string | undefined) => ca === undefined ? {} : { ca: [...rootCertificates, ca] }

/**
 * A node that was the master when this connection was made has been demoted since (a failover it
 * outlived, or a managed Redis promoting its replica): it refuses writes (READONLY), and unblocks
 * the reads blocked on it (UNBLOCKED … instance state changed). Connect again (through the
 * sentinels: to the master now) and send the command again, which the node did not run.
 */
const reconnectOnDemotion = (error: Error) =>
  /^READONLY|^UNBLOCKED.*instance state changed/.test(error.message) ? 2 : false

/**
 * ioredis' options for `endpoint`, besides the caller's. One server: TLS with the system's CAs and
 * `ca` when it says `rediss://` (ioredis reads the rest from the URL, given beside these). Sentinel:
 * everything, for `new Redis(options)`: the sentinels, the master's name and user, TLS to both
 * with `rediss+sentinel://`. `role: "master"`: ioredis asks a sentinel for the master's address at
 * every (re)connection, so after a failover it connects to the new master; with the ready check
 * it also checks the role (INFO), which a probe's user may not run. No `failoverDetector`: on the
 * sentinels' `+switch-master` it disconnects, and a connection still reconnecting from its dead
 * master then ends for good (ioredis 5.11: "Connection is closed" for every later command; the
 * system suite's redisFailover scenario found it). A master demoted while up (a failover asked
 * for, a partition healed) answers writes with READONLY and unblocks its blocked readers, so
 * `reconnectOnDemotion` moves those connections instead.
 */
export const connectionOptions = (
  endpoint: RedisEndpoint,
  ca: string | undefined,
  sentinelPassword?: string
): RedisOptions => {
  const common = { reconnectOnError: reconnectOnDemotion }
  if (endpoint._tag === "Server") {
    return /^rediss:\/\//i.test(endpoint.url) ? { ...common, tls: tlsOptions(ca) } : common
  }
  const { name, password, sentinels, tls, username } = endpoint
  return {
    ...common,
    sentinels: sentinels.map(({ host, port }) => ({ host, port })),
    name,
    role: "master",
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
    ...(tls ? { tls: tlsOptions(ca), sentinelTLS: tlsOptions(ca), enableTLSForSentinelMode: true } : {})
  }
}

/** How every connection of one transport is made: where, and whether it runs the ready check. */
export interface Endpoint {
  readonly redis: RedisEndpoint
  readonly ca: string | undefined
  /** The sentinels' own password (REDIS_SENTINEL_PASSWORD), for a Sentinel endpoint. */
  readonly sentinelPassword?: string | undefined
  readonly readyCheck: boolean
}

/** `url` (REDIS_URL, a Sentinel one too) parsed, or a QueueError saying what is wrong with it. */
export const parseEndpoint = (url: string) =>
  Result.match(parseRedisEndpoint(url), {
    onFailure: (message) => Effect.fail(new QueueError({ message: `REDIS_URL: ${message}` })),
    onSuccess: Effect.succeed
  })

/** Closes a connection: QUIT, or cut when that fails. */
const quit = (redis: Redis) => Effect.promise(() => redis.quit().then(() => undefined, () => redis.disconnect()))
/** Cuts a connection: what a blocking one needs, which QUIT would make wait out its BLOCK. */
export const cut = (redis: Redis) => Effect.sync(() => redis.disconnect())
/**
 * QUIT, which Redis answers after the command in progress (a blocking read waits out its BLOCK),
 * within `readerCloseMs`; else cut. Whether QUIT was answered: no command of it can run later.
 */
export const quitOrCut = (redis: Redis) =>
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
export const connect = (
  { ca, readyCheck, redis: where, sentinelPassword }: Endpoint,
  name: string,
  close: (redis: Redis) => Effect.Effect<void> = quit,
  pipelined = true
) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const options: RedisOptions = {
        ...connectionOptions(where, ca, sentinelPassword),
        enableReadyCheck: readyCheck,
        lazyConnect: true,
        enableAutoPipelining: pipelined,
        connectionName: name
      }
      const redis = where._tag === "Server" ? new Redis(where.url, options) : new Redis(options)
      // Failed commands report their own errors; this keeps ioredis from printing every reconnect attempt.
      // The last one says why a connection failed (a TLS certificate, a refused port), which
      // `connect` itself reduces to "Connection is closed".
      let lastError: unknown
      redis.on("error", (error) => (lastError = error))
      // What a sentinel said (refused, or knows no such master): ioredis' own error says only
      // that no sentinel gave an address.
      let sentinelSaid: unknown
      redis.on("sentinelError", (error) => (sentinelSaid = error))
      // A Sentinel connection would ask unreachable sentinels forever: its first round of them
      // failing fails the start, as a server's first refusal does.
      const firstError = new Promise<never>((_, reject) => redis.once("error", reject))
      yield* call(
        where._tag === "Server"
          ? `connecting to Redis (${name})`
          : `connecting to Redis (${name}) through the sentinels, master "${where.name}"`,
        () =>
          Promise.race([redis.connect(), firstError]).catch((error: unknown) => {
            const cause = lastError ?? error
            throw sentinelSaid !== undefined && String(cause).includes("All sentinels are unreachable")
              ? sentinelSaid
              : cause
          })
      ).pipe(
        Effect.tapError(() => Effect.sync(() => redis.disconnect()))
      )
      return redis
    }),
    close
  )

/** REDIS_CA_FILE: a PEM file of CA certificates trusted for `rediss://` besides the system's. */
export const RedisCaFile = Config.option(Config.String("REDIS_CA_FILE"))

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
