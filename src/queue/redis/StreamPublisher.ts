/**
 * XADDs: the jobs to their regions' streams, and probes' messages to their region's results
 * stream. Every XADD trims with `MAXLEN ~`, so the streams stay bounded even with nobody reading.
 */
import { Effect } from "effect"
import type { Redis } from "ioredis"

import type { CheckJob, ScheduledRun } from "../../domain/CheckJob.js"
import type { QueueError, RegionMessage } from "../JobTransport.js"
import type { KnownRegions } from "./KnownRegions.js"
import { call } from "./RedisConnection.js"
import { jobCodec, resultCodec } from "./StreamCodec.js"
import type { StreamKeys } from "./StreamKeys.js"

/** XADDs per pipeline, and pipelines sent before the oldest must have answered. */
const pipelineSize = 1000
const pipelinesInFlight = 4

export interface StreamPublisher {
  readonly publishJobs: (jobs: ReadonlyArray<CheckJob>) => Effect.Effect<void, QueueError>
  readonly publishRuns: (runs: ReadonlyArray<ScheduledRun>) => Effect.Effect<void, QueueError>
  readonly publishMessages: (messages: ReadonlyArray<RegionMessage>) => Effect.Effect<void, QueueError>
}

export const makeStreamPublisher = (
  {
    jobsMaxLength,
    regions: { recentRegions, scanRegions },
    resultsMaxLength,
    shared,
    streams: { jobsKey, prefix, resultsKey, resultsPrefix }
  }: {
    /** The auto-pipelined connection shared with acks and claims. */
    readonly shared: Redis
    readonly streams: StreamKeys
    readonly regions: KnownRegions
    readonly jobsMaxLength: number
    readonly resultsMaxLength: number
  }
): StreamPublisher => {
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
        const failed = all?.find(([error]) => error !== null)
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

  return { publishJobs, publishRuns, publishMessages }
}
