/**
 * The job transport on Redis Streams (ioredis).
 *
 * - `<prefix>jobs`: one consumer group per region, created with MKSTREAM at `$` (a new region
 *   starts with the next jobs); `<prefix>results`: one group `ingest`, created at `0` so no
 *   result published before ingest first joined is missed.
 * - Every XADD trims with `MAXLEN ~`, so the streams stay bounded even with nobody reading.
 * - Publishing, acks and claims share one auto-pipelined connection; every consumer's blocking
 *   XREADGROUP runs on a connection of its own, which a blocking command occupies whole.
 * - XAUTOCLAIM walks the pending list with a cursor kept between calls, so a long list of live
 *   deliveries at its head cannot hide a dead consumer's entries.
 */
import { Effect, Layer, Redacted, Schema } from "effect"
import { Redis } from "ioredis"

import { CheckJob, ProbeReport, type ScheduledRun } from "../domain/CheckJob.js"
import { type Consumer, type Delivery, ingestGroup, JobTransport, QueueError } from "./JobTransport.js"

export interface RedisTransportOptions {
  readonly url: string | Redacted.Redacted<string>
  /** Prepended to the stream names (`jobs`, `results`); lets deployments or tests share a Redis. */
  readonly prefix?: string
  /** Approximate length the jobs stream is trimmed to (default 100,000). */
  readonly jobsMaxLength?: number
  /** Approximate length the results stream is trimmed to (default 250,000). */
  readonly resultsMaxLength?: number
  /**
   * A joining consumer removes siblings idle this long with nothing pending (default 1 hour):
   * every probe restart joins under a new name, and the dead names would pile up.
   */
  readonly forgetConsumersIdleMs?: number
}

const call = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new QueueError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
  })

type StreamEntry = [id: string, fields: Array<string> | null]

interface StreamCodec<A> {
  readonly field: string
  readonly encode: (value: A) => string
  readonly decode: (json: string) => A | undefined
}

/**
 * `plain`: the values are their own JSON encoding (no transformation in the schema) and are
 * built valid, so JSON.stringify encodes them; Schema.encode would validate each again, which
 * costs more than the XADD. Decoding always validates.
 */
const codec = <A, I>(
  field: string,
  schema: Schema.Schema<A, I>,
  options: { readonly plain?: boolean } = {}
): StreamCodec<A> => {
  const json = Schema.parseJson(schema)
  const encode = options.plain === true ? (value: A) => JSON.stringify(value) : Schema.encodeSync(json)
  const decode = Schema.decodeUnknownOption(json)
  return {
    field,
    encode,
    decode: (text) => decode(text).pipe((option) => (option._tag === "Some" ? option.value : undefined))
  }
}

const jobCodec = codec("job", CheckJob, { plain: true })

/** XADDs per pipeline, and pipelines sent before the oldest must have answered. */
const pipelineSize = 1000
const pipelinesInFlight = 4
// Results and misses share the field `result`; a miss is told apart by its `_tag`.
const resultCodec = codec("result", ProbeReport, { plain: true })

/** A connection for the scope; `blocking` ones are cut rather than QUIT, which would wait out a BLOCK. */
const connect = (url: string, name: string, blocking = false) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const redis = new Redis(url, { lazyConnect: true, enableAutoPipelining: true, connectionName: name })
      // Failed commands report their own errors; this keeps ioredis from printing every reconnect attempt.
      redis.on("error", () => undefined)
      yield* call(`connecting to Redis (${name})`, () => redis.connect()).pipe(
        Effect.tapError(() => Effect.sync(() => redis.disconnect()))
      )
      return redis
    }),
    (redis) =>
      blocking
        ? Effect.sync(() => redis.disconnect())
        : Effect.promise(() => redis.quit().then(() => undefined, () => redis.disconnect()))
  )

export const make = (options: RedisTransportOptions) =>
  Effect.gen(function*() {
    const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const prefix = options.prefix ?? ""
    const jobsKey = `${prefix}jobs`
    const resultsKey = `${prefix}results`
    const jobsMaxLength = options.jobsMaxLength ?? 100_000
    const resultsMaxLength = options.resultsMaxLength ?? 250_000
    const forgetConsumersIdleMs = options.forgetConsumersIdleMs ?? 60 * 60 * 1000
    const shared = yield* connect(url, "status-page-queue")

    const createGroup = (key: string, group: string, from: "$" | "0") =>
      call(`creating consumer group ${group} on ${key}`, () =>
        shared.xgroup("CREATE", key, group, from, "MKSTREAM").catch((error: Error) => {
          if (!error.message.startsWith("BUSYGROUP")) {
            throw error
          }
        })).pipe(Effect.asVoid)

    /**
     * XADDs `count` entries (`encode(i)` is the i-th) in order, in pipelines of `pipelineSize`
     * with up to `pipelinesInFlight` of them sent at once, so Redis works on one while the next
     * is built. Fails with the first error after every pipeline sent has answered.
     */
    const xaddAll = async (
      key: string,
      maxLength: number,
      field: string,
      count: number,
      encode: (i: number) => string
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
          for (let i = start; i < end; i++) pipeline.xadd(key, "MAXLEN", "~", maxLength, "*", field, encode(i))
          inFlight.push(settle(pipeline.exec()))
        }
      } finally {
        await Promise.all(inFlight)
      }
      if (failure !== undefined) throw failure.error
    }

    const publish = <A>(key: string, maxLength: number, format: StreamCodec<A>) => (values: ReadonlyArray<A>) =>
      values.length === 0
        ? Effect.void
        : call(`publishing to ${key}`, () =>
          xaddAll(key, maxLength, format.field, values.length, (i) =>
            format.encode(values[i]!)))

    /** The scheduler's path: each job's JSON comes straight from its template, no CheckJob built. */
    const publishRuns = (runs: ReadonlyArray<ScheduledRun>) =>
      runs.length === 0
        ? Effect.void
        : call(`publishing to ${jobsKey}`, () =>
          xaddAll(jobsKey, jobsMaxLength, jobCodec.field, runs.length, (i) =>
            runs[i]!.template.encode(runs[i]!.scheduledAt)))

    /** Deletes long-idle consumers without pending entries; one with entries is left for a claim. */
    const forgetIdleConsumers = (key: string, group: string, self: string) =>
      call(`listing consumers of ${key}/${group}`, () =>
        shared.xinfo("CONSUMERS", key, group) as Promise<Array<Array<string | number>>>).pipe(
          Effect.flatMap((consumers) => {
            const idle = consumers.flatMap((fields) => {
              const info = new Map<string, string | number>()
              for (let i = 0; i + 1 < fields.length; i += 2) {
                info.set(String(fields[i]), fields[i + 1]!)
              }
              // Redis >= 7.2 reports `inactive` (since the last successful read); older ones `idle`.
              const idleMs = Number(info.get("inactive") ?? info.get("idle"))
              const name = String(info.get("name"))
              return name !== self && Number(info.get("pending")) === 0 && idleMs >= forgetConsumersIdleMs ? [name] : []
            })
            return Effect.forEach(idle, (name) =>
              call(`removing consumer ${name}`, () =>
                shared.xgroup("DELCONSUMER", key, group, name)), { discard: true }).pipe(
                Effect.tap(() =>
                  idle.length > 0
                    ? Effect.logInfo("removed idle consumers").pipe(
                      Effect.annotateLogs({ group, consumers: idle.join(",") })
                    )
                    : Effect.void
                )
              )
          }),
          Effect.catchAll((error) =>
            Effect.logWarning("could not remove idle consumers").pipe(Effect.annotateLogs({ error: error.message }))
          )
        )

    const consumer = <A>(key: string, group: string, from: "$" | "0", name: string, format: StreamCodec<A>) =>
      Effect.gen(function*() {
        yield* createGroup(key, group, from)
        yield* forgetIdleConsumers(key, group, name)
        // Dedicated: a blocking XREADGROUP holds its connection until it returns.
        const reader = yield* connect(url, `status-page-${group}-${name}`, true)
        let claimCursor = "0-0"

        const ack = (ids: ReadonlyArray<string>) =>
          ids.length === 0
            ? Effect.void
            : call(`acknowledging on ${key}`, () =>
              shared.xack(key, group, ...ids)).pipe(Effect.asVoid)

        /** Decodes entries; undecodable or trimmed ones are acknowledged so they never come back. */
        const decodeEntries = (entries: ReadonlyArray<StreamEntry | null>) =>
          Effect.gen(function*() {
            const deliveries: Array<Delivery<A>> = []
            const dropped: Array<string> = []
            for (const entry of entries) {
              if (entry === null) {
                continue
              }
              const [id, fields] = entry
              const index = fields === null ? -1 : fields.indexOf(format.field)
              const value = index >= 0 && index % 2 === 0 ? format.decode(fields![index + 1]!) : undefined
              if (value === undefined) {
                dropped.push(id)
              } else deliveries.push({ id, value })
            }
            if (dropped.length > 0) {
              yield* Effect.logWarning("dropping undecodable stream entries").pipe(
                Effect.annotateLogs({ stream: key, ids: dropped.join(",") })
              )
              yield* ack(dropped)
            }
            return deliveries
          })

        // The stream or group was deleted under us (e.g. FLUSHALL): make it again and go on.
        const recreateOnNoGroup = <B>(empty: B) => (self: Effect.Effect<B, QueueError>) =>
          Effect.catchIf(self, (error) =>
            error.message.includes("NOGROUP"), () =>
            Effect.as(createGroup(key, group, from), empty))

        const read = (max: number, blockMs: number) =>
          call(`reading ${key} as ${group}/${name}`, () =>
            reader.xreadgroup("GROUP", group, name, "COUNT", max, "BLOCK", blockMs, "STREAMS", key, ">") as Promise<
              Array<[string, Array<StreamEntry>]> | null
            >).pipe(
              Effect.flatMap((reply) =>
                decodeEntries(reply?.[0]?.[1] ?? [])
              ),
              recreateOnNoGroup<ReadonlyArray<Delivery<A>>>([])
            )

        const claimStale = (max: number, minIdleMs: number) =>
          call(`claiming stale entries of ${key}/${group}`, () =>
            shared.xautoclaim(key, group, name, minIdleMs, claimCursor, "COUNT", max) as Promise<
              [string, Array<StreamEntry | null>, Array<string>?]
            >).pipe(
              Effect.flatMap(([next, entries]) => {
                claimCursor = next
                return decodeEntries(entries)
              }),
              recreateOnNoGroup<ReadonlyArray<Delivery<A>>>([])
            )

        const keepAlive = (ids: ReadonlyArray<string>) =>
          ids.length === 0 ?
            Effect.void :
            call(`refreshing pending entries of ${key}/${group}`, () =>
              shared.xclaim(key, group, name, 0, ...ids, "JUSTID")).pipe(Effect.asVoid)

        return { name, read, claimStale, keepAlive, ack } satisfies Consumer<A>
      })

    yield* createGroup(resultsKey, ingestGroup, "0")

    return JobTransport.of({
      publishJobs: publish(jobsKey, jobsMaxLength, jobCodec),
      publishRuns,
      jobConsumer: (region, name) =>
        consumer(jobsKey, region, "$", name, jobCodec),
      publishResults: publish(resultsKey, resultsMaxLength, resultCodec),
      resultConsumer: (name) =>
        consumer(resultsKey, ingestGroup, "0", name, resultCodec)
    })
  })

export const layer = (options: RedisTransportOptions) => Layer.scoped(JobTransport, make(options))
