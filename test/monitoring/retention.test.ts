/**
 * Retention on its schedule, on the suite's TestClock: the ingest role's hourly pass deletes raw
 * results and misses scheduled more than RESULTS_RETENTION_DAYS before it (here 3, not the
 * default 7), and the aggregation's pass every minute deletes hourly rollups older than 48 hours
 * and daily ones older than 400 days (docs/monitor-fleet.md, "Uptime"). What must be gone and
 * what must stay is computed from the times the test chose and the clock, never read back.
 */
import { expect, it } from "@effect/vitest"
import { Array as Arr, Clock, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { jobIdOf, MissedCheck } from "../../src/domain/CheckJob.js"
import { CheckResultsRepo } from "../../src/persistence/CheckResultsRepo.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { UptimeAggregator } from "../../src/workers/UptimeAggregator.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { asleepUntil, eventually, testClockSleeps } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour
const floorTo = (at: number, length: number) => Math.floor(at / length) * length

/** The TestClock's pending wake-ups. */
const sleeps = testClockSleeps

// Ingest reads from Redis (a stream prefix of its own), whose blocking reads wait in real time:
// on the TestClock only the retention pass sleeps.
const Transport = Layer.unwrap(
  Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix }))
)
const retentionDays = 3
const ResultsStack = IngestConsumer.pipe(
  Layer.provideMerge(CheckResultsRepo.layer),
  Layer.provideMerge(Transport),
  Layer.provideMerge(TestServer({ RESULTS_RETENTION_DAYS: String(retentionDays) }))
)

it.layer(ResultsStack)("retention of raw results", (it) => {
  it.effect("RESULTS_RETENTION_DAYS=3: each hourly pass deletes the runs scheduled more than 3 days before it", () =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      // The pass at start-up is over; the next one is due in an hour.
      yield* asleepUntil(start + hour)

      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Kept for 3 days" } })
      const monitor = yield* client.monitors.create({
        payload: { componentId: component.id, type: "http", url: "https://example.com" }
      })
      // Runs (the monitor's, at most a minute earlier) 72.5, 70.5 and 69.5 hours old cross the 3-day line at the next three passes; those
      // 48 hours and 1 hour old stay (all of them would stay under the default 7 days).
      const scheduled = [72.5, 70.5, 69.5, 48, 1].map((hours) => slotOf(monitor.id, start - hours * hour))
      // Written as ingest writes them: ingest itself admits no run that old, nor one before its
      // monitor was created (docs/monitor-fleet.md, "Result admission").
      const repo = yield* CheckResultsRepo
      yield* repo.storeResults(scheduled.map((at) => checkResult(monitor.id, "eu", at, true)))
      yield* repo.insertMisses(scheduled.map((at) =>
        new MissedCheck({
          jobId: jobIdOf(monitor.id, at),
          monitorId: monitor.id,
          region: "us",
          probe: "us-1",
          scheduledAt: at,
          recordedAt: at + 61_000,
          reason: "late"
        })
      ))

      /** The runs the API lists. */
      const listed = Effect.map(
        client.monitors.results({ params: { id: monitor.id }, query: {} }),
        (runs) => runs.map((run) => `${run.outcome} ${run.region} ${DateTime.toEpochMillis(run.scheduledAt)}`).sort()
      )
      const all = scheduled.flatMap((at) => [`checked eu ${at}`, `missed us ${at}`]).sort()
      /** What a pass at `passAt` must leave: every run scheduled since 3 days before it. */
      const keptAfterPassAt = (passAt: number) =>
        all.filter((run) => Number(run.split(" ")[2]) >= passAt - retentionDays * day)

      // All ten stored: the pass at start-up was over before they came.
      expect(yield* eventually(listed, (runs) => runs.length === 10)).toEqual(all)

      for (let pass = 1; pass <= 3; pass++) {
        yield* TestClock.adjust("1 hour")
        const passAt = start + pass * hour
        yield* asleepUntil(passAt + hour) // the pass is over (judged by what it left, below)
        const kept = keptAfterPassAt(passAt)
        expect(kept).toHaveLength(10 - 2 * pass) // each pass has something to delete
        expect(yield* listed, `after the pass ${pass} hour(s) on`).toEqual(kept)
      }
    }))
})

const RollupsStack = UptimeAggregator.pipe(Layer.provideMerge(TestServer()))

it.layer(RollupsStack)("retention of uptime rollups", (it) => {
  it.effect("a pass deletes hourly rollups older than 48 hours and daily ones older than 400 days; the rest stay", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const component = yield* client.components.create({ payload: { name: "Rolled up" } })
      const start = yield* Clock.currentTimeMillis

      /**
       * Moves the clock to `at` with one pass of the aggregation in its last minute: the clock
       * goes to a minute before (any passes on the way), the fiber is left to re-arm, then one
       * more minute wakes it once more. `at` is 30 minutes past an hour, so any moment of that
       * minute draws the same lines between buckets that start on the hour.
       */
      const passBefore = (at: number) =>
        Effect.gen(function*() {
          yield* TestClock.adjust(at - minute - (yield* Clock.currentTimeMillis))
          const armed = yield* eventually(sleeps, (list) => list.some((t) => t > at - minute && t <= at), 10_000)
          expect(armed.some((t) => t > at - minute && t <= at), "the aggregation re-armed").toBe(true)
          yield* TestClock.adjust(minute)
        })

      // Made-up rollups far in the past, beyond what the aggregation recomputes (25 hours, 91 days).
      // Half past the next hour, and the hour after it on the same day.
      let firstPass = floorTo(start, hour) + hour + 30 * minute
      if (firstPass + hour > floorTo(firstPass, day) + day) firstPass += hour
      const hourly = Arr.map([46, 47, 48, 49] as const, (hours) => floorTo(firstPass, hour) - hours * hour)
      const daily = Arr.map([398, 399, 400, 401] as const, (days) => floorTo(firstPass, day) - days * day)
      yield* sql`insert into uptime_rollups ${
        sql.insert(Arr.map(
          Arr.appendAll(
            Arr.map(hourly, (at) => ({ granularity: "hour", bucketStart: new Date(at) })),
            Arr.map(daily, (at) => ({ granularity: "day", bucketStart: new Date(at) }))
          ),
          (row) => ({ ...row, componentId: component.id, observedSeconds: 3600, downtimeSeconds: 0 })
        ))
      }`

      const stored = Effect.map(
        sql<{ granularity: string; bucketStart: Date }>`
          select granularity, bucket_start from uptime_rollups
          where component_id = ${component.id} and bucket_start < ${new Date(start - day)}`,
        (rows) => rows.map((row) => `${row.granularity} ${row.bucketStart.getTime()}`).sort()
      )
      const keptAfterPassAt = (passAt: number) =>
        [
          ...hourly.filter((at) => at >= passAt - 48 * hour).map((at) => `hour ${at}`),
          ...daily.filter((at) => at >= passAt - 400 * day).map((at) => `day ${at}`)
        ].sort()

      // Three passes: that one, an hour later, and half past the next midnight.
      const passes = [firstPass, firstPass + hour, floorTo(firstPass, day) + day + 30 * minute]
      const expected = passes.map(keptAfterPassAt)
      // Each pass has something to delete: 48 and 49 hours, 400 and 401 days; 47 hours; 46 hours and 399 days.
      expect(expected.map((kept) => kept.length)).toEqual([4, 3, 1])
      for (const [index, passAt] of passes.entries()) {
        yield* passBefore(passAt)
        const kept = expected[index]!
        expect(
          yield* eventually(stored, (rows) => rows.length === kept.length),
          `after the pass at ${new Date(passAt).toISOString()}`
        ).toEqual(kept)
      }
    }))
})
