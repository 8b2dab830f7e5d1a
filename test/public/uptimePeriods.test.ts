/**
 * A period's uptime is summed from weekly sums of the daily rollups (kept by triggers) and the
 * days before the period's first week. These tests hold it to the plain sum of the daily rows,
 * the statement the read ran before, through every way the daily rows change.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import type { UptimePeriod } from "../../src/domain/Uptime.js"
import { uptimePercentage } from "../../src/domain/UptimeCalculation.js"
import type { RollupRow } from "../../src/persistence/UptimeRepo.js"
import { UptimeRepo } from "../../src/persistence/UptimeRepo.js"
import { periodBuckets, Uptime } from "../../src/services/monitoring/Uptime.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const Stack = Layer.mergeAll(Uptime.layer, UptimeRepo.layer).pipe(Layer.provideMerge(TestServer()))

const hour = 3_600_000
const day = 24 * hour
const periods: ReadonlyArray<UptimePeriod> = ["24h", "7d", "30d", "90d"]

/** What every period's read returned before the weekly sums: each component's rows summed as they join it. */
const summedFromRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  const expected: Array<{ period: UptimePeriod; componentId: string; uptimePercentage: number }> = []
  for (const period of periods) {
    const { count, granularity } = periodBuckets[period]
    const length = granularity === "hour" ? hour : day
    const from = new Date(Math.floor(now / length) * length - (count - 1) * length)
    const rows = yield* sql<{ componentId: string; observed: number; downtime: number }>`
      select c.id as component_id, coalesce(sum(r.observed_seconds), 0)::float8 as observed,
             coalesce(sum(r.downtime_seconds), 0)::float8 as downtime
      from components c
      left join uptime_rollups r on r.component_id = c.id and r.granularity = ${granularity} and r.bucket_start >= ${from}
      where c.is_public
      group by c.id, c.name, c.display_order
      order by c.display_order, c.name, c.id`
    for (const row of rows) {
      expected.push({
        period,
        componentId: row.componentId,
        uptimePercentage: uptimePercentage(row.observed, row.downtime)
      })
    }
  }
  return expected
})

const read = Effect.gen(function*() {
  const uptime = yield* Uptime
  const records = yield* Effect.forEach(periods, (period) => uptime.read(period))
  return records.flat().map(({ componentId, period, uptimePercentage }) => ({ period, componentId, uptimePercentage }))
})

/** Days (and hours) with uneven, fractional seconds, so a sum that left a day out or took one twice would show. */
const rollups = (componentId: string, now: number, days: number, skip: (n: number) => boolean) => {
  const today = Math.floor(now / day) * day
  const thisHour = Math.floor(now / hour) * hour
  const rows: Array<RollupRow & { granularity: "day" | "hour" }> = []
  for (let n = 0; n < days; n++) {
    if (skip(n)) continue
    const observedSeconds = n === 0 ? (now - today) / 1000 : 86_400 - (n % 5) * 0.37
    rows.push({
      granularity: "day",
      componentId,
      bucketStart: new Date(today - n * day),
      observedSeconds,
      downtimeSeconds: ((n * 7919) % 1300) * 1.13
    })
  }
  for (let n = 0; n < 30; n++) {
    rows.push({
      granularity: "hour",
      componentId,
      bucketStart: new Date(thisHour - n * hour),
      observedSeconds: 3600 - n * 0.5,
      downtimeSeconds: (n * 37) % 200
    })
  }
  return rows
}

const write = (rows: ReadonlyArray<RollupRow & { granularity: "day" | "hour" }>) =>
  Effect.gen(function*() {
    const repo = yield* UptimeRepo
    yield* repo.upsert("day", rows.filter((row) => row.granularity === "day"))
    yield* repo.upsert("hour", rows.filter((row) => row.granularity === "hour"))
  })

it.layer(Stack)("uptime periods", (it) => {
  it.effect("equal the sum of the daily rows through writes, rewrites, gaps, pruning and deletions", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const repo = yield* UptimeRepo
      const now = yield* Clock.currentTimeMillis
      const [steady, patchy, hidden, doomed] = yield* Effect.forEach(
        [{ name: "Steady" }, { name: "Patchy" }, { name: "Hidden", isPublic: false }, { name: "Doomed" }],
        (payload) => client.components.create({ payload })
      )
      // A hundred days: every week of each period has days, and some lie before each period.
      yield* write(rollups(steady!.id, now, 100, () => false))
      yield* write(rollups(patchy!.id, now, 100, (n) => n % 3 === 1 || (n >= 10 && n < 24)))
      yield* write(rollups(hidden!.id, now, 100, () => false))
      yield* write(rollups(doomed!.id, now, 100, (n) => n % 2 === 0))
      const check = Effect.gen(function*() {
        const expected = yield* summedFromRows
        expect(yield* read).toEqual(expected)
        return expected
      })

      const first = yield* check
      expect(first.map((record) => record.componentId)).not.toContain(hidden!.id)
      expect(first.filter((record) => record.uptimePercentage < 100).length).toBeGreaterThan(8)

      // The aggregation writes the last days again, and a day marked dirty weeks ago.
      yield* write(
        rollups(steady!.id, now, 40, (n) => n > 1 && n !== 33).map((row) => ({
          ...row,
          downtimeSeconds: row.downtimeSeconds / 3 + 11
        }))
      )
      // A week emptied, and a day of another deleted: their sums go.
      yield* sql`delete from uptime_rollups where component_id = ${patchy!.id} and granularity = 'day'
        and bucket_start >= ${new Date(now - 60 * day)} and bucket_start < ${new Date(now - 45 * day)}`
      yield* sql`delete from uptime_rollups where component_id = ${steady!.id} and granularity = 'day'
        and bucket_start = ${new Date(Math.floor(now / day) * day - 2 * day)}`
      yield* check
      // A day moved into an empty week.
      const moved = new Date(Math.floor(now / day) * day - 63 * day)
      yield* sql`update uptime_rollups set bucket_start = bucket_start + interval '4 days'
        where component_id = ${patchy!.id} and granularity = 'day' and bucket_start = ${moved}`
      yield* check
      // Retention, then a component deleted with its rollups.
      yield* repo.prune("day", new Date(now - 80 * day))
      yield* client.components.remove({ params: { id: doomed!.id } })
      const last = yield* check
      expect(last.map((record) => record.componentId)).not.toContain(doomed!.id)
      // Each day of the week in turn: a period starts on a Monday, the first day of a week, once in seven.
      for (let shift = 1; shift <= 7; shift++) {
        yield* TestClock.adjust("1 day")
        yield* check
      }

      // The weekly sums hold exactly the weeks that have days.
      const [stale] = yield* sql<{ count: number }>`
        select count(*)::int as count
        from (
          select component_id, uptime_week_of(bucket_start) as week_start, sum(observed_seconds) as observed,
                 sum(downtime_seconds) as downtime
          from uptime_rollups where granularity = 'day' group by 1, 2
        ) as days
        full join uptime_rollup_weeks w using (component_id, week_start)
        where days.observed is null or w.observed_seconds is null or abs(days.observed - w.observed_seconds) > 1e-6
          or abs(days.downtime - w.downtime_seconds) > 1e-6`
      expect(stale!.count).toBe(0)
    }))
})
