/**
 * Connections to Redis, and the one way every Redis command is run (`call`): its rejection
 * becomes a QueueError saying what was being done.
 */
import { readFileSync } from "node:fs"
import { rootCertificates } from "node:tls"

import { Config, Effect, Option } from "effect"
import { Redis, type RedisOptions } from "ioredis"

import { QueueError } from "../JobTransport.js"

export const queueError = (what: string, cause: unknown) =>
  new QueueError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

export const call = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => queueError(what, cause) })

/** How long a leaving consumer's reader may take to close (QUIT waits for the read in progress). */
export const readerCloseMs = 10_000

/** ioredis' options for `url`: TLS with the system's CAs and `ca` when it says `rediss://`. */
export const connectionOptions = (url: string, ca: string | undefined): RedisOptions =>
  /^rediss:\/\//i.test(url)
    ? { tls: ca === undefined ? {} : { ca: [...rootCertificates, ca] } }
    : {}

/** How every connection of one transport is made: where, and whether it runs the ready check. */
export interface Endpoint {
  readonly url: string
  readonly ca: string | undefined
  readonly readyCheck: boolean
}

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
