/**
 * The real CheckScheduler in the test's scope, publishing through the in-process transport,
 * wrapped to record every job handed to it and to hold a publish (a scheduler stalled mid-tick),
 * and with its log captured. For suites on the TestClock.
 */
import { expect } from "@effect/vitest"
import { type Context, Effect, Latch, Layer, Logger, LogLevel } from "effect"
import type { SqlClient } from "effect/sql"

import type { CheckJob } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { eventually } from "./Eventually.js"
import { logAnnotations, minimumLogLevel, replaceDefaultLogger } from "./Logs.js"

export interface LogLine {
  readonly level: LogLevel.LogLevel
  readonly message: string
  readonly monitorId: unknown
}

/** What a job asks a probe to do, and for which slot. */
const jobView = (job: CheckJob) => ({
  url: job.url,
  intervalSeconds: job.intervalSeconds,
  scheduledAt: job.scheduledAt
})

/** How a test starts the scheduler: on a database client of its own, and with a hook after each publish. */
export interface SchedulerOptions {
  /** The scheduler's SqlClient (one behind a proxy the test cuts); the test's by default. */
  readonly database?: Layer.Layer<SqlClient.SqlClient>
  /** The transport the scheduler publishes through (a real Redis one); the in-process one by default. */
  readonly transport?: Context.Service.Shape<typeof JobTransport>
  /** Runs after the n-th publish (from 1) has reached the transport, before the tick goes on. */
  readonly afterPublish?: (n: number) => Effect.Effect<void>
}

/**
 * Starts the scheduler and waits (in real time) for its first tick: it has taken the lock,
 * loaded the monitors and published the ones due.
 */
export const startSchedulerWith = Effect.fnUntraced(function*(options: SchedulerOptions) {
  const inner = options.transport ?? (yield* InProcessJobTransport.make())
  const jobs: Array<CheckJob> = []
  const lines: Array<LogLine> = []
  let ticks = 0
  /** Closed, it holds the scheduler inside its next publish: the tick stalls there. */
  const gate = yield* Latch.make(true)
  const transport = JobTransport.of({
    ...inner,
    publishRuns: (runs) =>
      gate.await.pipe(Effect.andThen(Effect.suspend(() => {
        const n = ++ticks
        for (const run of runs) jobs.push(run.template.job(run.scheduledAt))
        return Effect.andThen(inner.publishRuns(runs), options.afterPublish?.(n) ?? Effect.void)
      })))
  })
  const capture = Logger.make((entry) => {
    const { logLevel, message } = entry
    lines.push({
      level: logLevel,
      message: String(Array.isArray(message) ? message[0] : message),
      monitorId: logAnnotations(entry)["monitorId"]
    })
  })
  // Fresh: a scheduler of its own each time, never one the suite's layer has built already.
  yield* Layer.buildWithScope(
    Layer.fresh(CheckScheduler.pipe(
      Layer.provide(Layer.succeed(JobTransport, transport)),
      Layer.provide(replaceDefaultLogger(capture)),
      Layer.provide(minimumLogLevel("Info")),
      Layer.provide(options.database ?? Layer.empty)
    )),
    yield* Effect.scope
  )
  expect(yield* eventually(Effect.sync(() => ticks), (n) => n > 0, 20_000)).toBeGreaterThan(0)
  return {
    gate,
    /** The lines logged at Warning or above. */
    warnings: () => lines.filter((line) => LogLevel.isGreaterThanOrEqualTo(line.level, "Warn")),
    /** Every line logged at Info or above. */
    lines: () => lines,
    ticks: () => ticks,
    jobsOf: (monitorId: string) => jobs.filter((job) => job.monitorId === monitorId).map(jobView)
  }
})

/** The scheduler on the test's database. */
export const startScheduler = startSchedulerWith({})
