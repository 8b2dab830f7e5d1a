/**
 * Response times by region, end to end on PostgreSQL: ingest queues each batch's successful
 * checks, a fold rolls them up per monitor, region, hour and day, exactly once whatever runs at
 * once; the public endpoint, the admin endpoint and the status page's chart answer from those
 * rollups alone; housekeeping drops expired rollups.
 */
import { PgTypes } from "@effect/sql-pg"
import { expect, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import type { CheckResult } from "../../src/domain/CheckJob.js"
import { bucketBounds, bucketCount, relativeError } from "../../src/domain/ResponseTimeHistogram.js"
import { keepDailyMillis, keepHourlyMillis, rollUp } from "../../src/domain/ResponseTimes.js"
import { CheckResultsRepo } from "../../src/persistence/CheckResultsRepo.js"
import { ResponseTimesRepo } from "../../src/persistence/ResponseTimesRepo.js"
import { ResponseTimes } from "../../src/services/monitoring/ResponseTimes.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { Housekeeping } from "../../src/workers/Housekeeping.js"
import { foldInterval, ResponseTimeRollups } from "../../src/workers/ResponseTimeRollups.js"
import { checkResult, slotFrom } from "../support/CheckResults.js"
import { asleepUntil, eventually, realPause } from "../support/Eventually.js"
import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

const Stack = Layer.mergeAll(ResultIngest.layer, ResponseTimes.layer, ResponseTimesRepo.layer, CheckResultsRepo.layer)
  .pipe(Layer.provideMerge(TestServer()))

/**
 * Stores checks of hours and days back as ingest stores a batch's results (the statement that
 * also queues the successes for the rollups): ingest itself admits no result that late, nor
 * before its monitor was created (docs/monitor-fleet.md, "Result admission").
 */
const storeHistory = (reports: ReadonlyArray<CheckResult>) =>
  Effect.flatMap(CheckResultsRepo, (repo) => repo.storeResults(reports))

/** Stores a batch, then folds what is pending into the rollups (what the ingest role's fiber does every 10 s). */
const ingestAndFold = (reports: ReadonlyArray<CheckResult>) =>
  Effect.gen(function*() {
    yield* storeHistory(reports)
    return yield* (yield* ResponseTimes).fold()
  })

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour
/** A UTC midnight at least three hours ahead: every run below is dated after the monitors were created. */
const midnight = Math.ceil((Date.now() + 3 * hour) / day) * day

/** The monitors' interval (the default): ingest admits only runs on their slots. */
const intervalMs = 60_000

/** A check of the monitor's first slot at or after `at` (within the same minute). */
const run = (monitorId: string, region: string, at: number, durationMs: number, ok = true) =>
  checkResult(monitorId, region, slotFrom(monitorId, at, intervalMs / 1000), ok, {
    durationMs,
    timings: { dnsMs: 5, connectMs: 10, tlsMs: region === "us-east" ? null : 20, firstByteMs: durationMs - 40 }
  })

/** A component (public unless told) with one http monitor checked from two regions. */
const monitored = (name: string, isPublic = true) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name, isPublic } })
    const monitor = yield* client.monitors.create({
      payload: { componentId: component.id, type: "http", url: "https://example.com", regions: ["eu-west", "us-east"] }
    })
    expect(monitor.intervalSeconds * 1000).toBe(intervalMs)
    return { component, monitor }
  })

const close = (estimate: number, exact: number) => Math.abs(estimate - exact) / exact <= relativeError

it.layer(Stack)("response times", (it) => {
  it.effect("rolls checks up per region, hour and day; the public endpoint reads the rollups only", () =>
    Effect.gen(function*() {
      const { component, monitor } = yield* monitored("Checkout")
      yield* TestClock.setTime(midnight + 90 * minute)
      const at = (offset: number) => midnight + offset
      yield* storeHistory([
        // The hour from 22:00 the day before: three checks.
        run(monitor.id, "eu-west", at(-90 * minute), 100),
        run(monitor.id, "eu-west", at(-89 * minute), 110),
        run(monitor.id, "eu-west", at(-88 * minute), 120),
        // The last minute of that day, and the first of the next.
        run(monitor.id, "eu-west", at(-minute), 500),
        run(monitor.id, "eu-west", at(0), 50)
      ])
      yield* storeHistory([
        run(monitor.id, "eu-west", at(10 * minute), 60),
        // Delivered again: stored once, counted once.
        run(monitor.id, "eu-west", at(10 * minute), 60),
        run(monitor.id, "us-east", at(70 * minute), 200),
        run(monitor.id, "us-east", at(71 * minute), 220),
        // A failure is not a response time.
        run(monitor.id, "us-east", at(72 * minute), 9000, false)
      ])
      // Ingest queued the eight stored successes; the fold adds them to the rollups.
      expect(yield* (yield* ResponseTimes).fold()).toBe(8)

      const response = yield* sendAnonymous("GET", `/api/v1/status/components/${component.id}/response-times`)
      expect(response.status).toBe(200)
      expect(response.headers).toMatchObject({ "cache-control": "public, max-age=5", etag: expect.any(String) })
      const body = response.body as {
        componentId: string
        period: string
        regions: Array<{ region: string; points: Array<Record<string, unknown>> }>
      }
      expect(body.componentId).toBe(component.id)
      expect(body.period).toBe("24h")
      expect(body.regions.map((region) => region.region)).toEqual(["eu-west", "us-east"])
      const [eu, us] = body.regions
      expect(eu!.points.map((point) => [point.at, point.count])).toEqual([
        [new Date(at(-2 * hour)).toISOString(), 3],
        [new Date(at(-hour)).toISOString(), 1],
        [new Date(at(0)).toISOString(), 2]
      ])
      expect(us!.points.map((point) => [point.at, point.count])).toEqual([[new Date(at(hour)).toISOString(), 2]])
      const first = eu!.points[0]!
      expect(close(first.p50Ms as number, 110)).toBe(true)
      expect(close(first.p95Ms as number, 120)).toBe(true)
      expect(close(first.p99Ms as number, 120)).toBe(true)
      expect(first).toMatchObject({ meanMs: 110, dnsMs: 5, connectMs: 10, tlsMs: 20, firstByteMs: 70 })
      // us-east has no TLS phase in these checks.
      expect(us!.points[0]).toMatchObject({ meanMs: 210, tlsMs: null })
      expect(
        (yield* sendAnonymous(
          "GET",
          `/api/v1/status/components/${component.id}/response-times`,
          undefined,
          { "if-none-match": response.headers.etag! }
        )).status
      ).toBe(304)

      // The typed client decodes the same answer.
      const client = yield* ApiClient
      const daily = yield* client.status.responseTimes({ params: { id: component.id }, query: { period: "30d" } })
      expect(daily.period).toBe("30d")
      expect(daily.regions.map((region) => ({
        region: region.region,
        days: region.points.map((point) => [point.at.epochMilliseconds, point.count])
      }))).toEqual([
        { region: "eu-west", days: [[at(-day), 4], [at(0), 2]] },
        { region: "us-east", days: [[at(0), 2]] }
      ])
      const week = yield* client.status.responseTimes({ params: { id: component.id }, query: { period: "7d" } })
      expect(week.regions.map((region) => region.points.length)).toEqual([3, 1])

      // Raw checks are not read: with them gone, the answers are the same once the cache expires.
      const sql = yield* SqlClient.SqlClient
      yield* sql`delete from check_results where monitor_id = ${monitor.id}`
      yield* TestClock.adjust("5 seconds")
      const again = yield* client.status.responseTimes({ params: { id: component.id }, query: { period: "30d" } })
      expect(again.regions).toEqual(daily.regions)

      // The admin endpoint answers per monitor, the same figures.
      const ofMonitor = yield* client.responseTimes.ofMonitor({ params: { id: monitor.id }, query: {} })
      expect(ofMonitor.monitorId).toBe(monitor.id)
      expect(ofMonitor.regions).toEqual(
        (yield* client.status.responseTimes({ params: { id: component.id }, query: {} })).regions
      )
    }))

  it.effect("a window moves with the clock: hours older than 24 leave the 24h answer", () =>
    Effect.gen(function*() {
      const { component, monitor } = yield* monitored("Search")
      const now = yield* Clock.currentTimeMillis
      const hourStart = Math.floor(now / hour) * hour
      yield* ingestAndFold([run(monitor.id, "eu-west", hourStart, 80)])
      const client = yield* ApiClient
      const points = (period: "24h" | "7d") =>
        Effect.map(
          client.status.responseTimes({ params: { id: component.id }, query: { period } }),
          (answer) => answer.regions.flatMap((region) => region.points.map((point) => point.at.epochMilliseconds))
        )
      expect(yield* points("24h")).toEqual([hourStart])
      yield* TestClock.adjust(23 * hour)
      expect(yield* points("24h")).toEqual([hourStart])
      yield* TestClock.adjust(hour)
      expect(yield* points("24h")).toEqual([])
      expect(yield* points("7d")).toEqual([hourStart])
    }))

  it.effect("a private or unknown component is 404, as other public reads; a bad period is 400", () =>
    Effect.gen(function*() {
      const { component } = yield* monitored("Internal billing", false)
      const unknown = yield* sendAnonymous("GET", "/api/v1/status/components/nothing-here/response-times")
      const hidden = yield* sendAnonymous("GET", `/api/v1/status/components/${component.id}/response-times`)
      const incident = yield* sendAnonymous("GET", "/api/v1/status/incidents/nothing-here")
      for (const response of [unknown, hidden]) {
        expect(response.status).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: expect.stringContaining("was not found") })
      }
      expect(Object.keys(hidden.body)).toEqual(Object.keys(incident.body))
      // Shown, then hidden: 404 once the snapshot says so.
      const client = yield* ApiClient
      const { component: shown } = yield* monitored("Shown then hidden")
      const url = `/api/v1/status/components/${shown.id}/response-times`
      expect((yield* sendAnonymous("GET", url)).status).toBe(200)
      yield* client.components.update({ params: { id: shown.id }, payload: { isPublic: false } })
      expect((yield* sendAnonymous("GET", url)).status).toBe(404)

      const { component: open } = yield* monitored("Open")
      for (const bad of ["1h", "24H", "", "90d", "24h&period=7d"]) {
        const response = yield* sendAnonymous(
          "GET",
          `/api/v1/status/components/${open.id}/response-times?period=${bad}`
        )
        expect(response.status, bad).toBe(400)
        expect(response.body).toMatchObject({ _tag: "HttpApiDecodeError", issues: expect.any(Array) })
      }
      const admin = yield* sendJson("GET", "/api/v1/admin/monitors/nothing-here/response-times")
      expect(admin.status).toBe(404)
      expect(admin.body).toMatchObject({ _tag: "NotFound" })
      expect((yield* sendJson("GET", "/api/v1/admin/monitors/nothing-here/response-times?period=1y")).status).toBe(400)
      expect((yield* sendAnonymous("GET", "/api/v1/admin/monitors/nothing-here/response-times")).status).toBe(401)
    }))

  it.effect("the status page draws a chart per component with monitors, with its text alternative", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored("Storefront <API>")
      const client = yield* ApiClient
      const plain = yield* client.components.create({ payload: { name: "No monitors here" } })
      const now = yield* Clock.currentTimeMillis
      const hourStart = Math.floor(now / hour) * hour
      yield* ingestAndFold([
        run(monitor.id, "eu-west", hourStart - 2 * hour, 120),
        run(monitor.id, "eu-west", hourStart - hour, 140),
        run(monitor.id, "eu-west", hourStart, 130),
        run(monitor.id, "us-east", hourStart - hour, 310)
      ])
      // The page reads response times with the uptime buckets, at most once a minute.
      yield* TestClock.adjust("1 minute")
      const page = yield* sendAnonymous("GET", "/")
      expect(page.status).toBe(200)
      const html = page.body as string
      const card = html.slice(html.indexOf("Storefront &lt;API&gt;"), html.indexOf("No monitors here"))
      // Named and described by its first children, as the SVG accessibility mapping reads them.
      expect(card).toMatch(
        /<svg role="img" [^>]*><title>Response times of Storefront &lt;API&gt;, last 24 hours<\/title><desc>[^<]*95th percentile[^<]*\(eu-west, us-east\)/
      )
      // eu-west: a line through three adjacent hours; us-east: one hour, a marker; told apart by dashes.
      expect(card.match(/<polyline /g)).toHaveLength(1)
      expect(card.match(/<circle /g)).toHaveLength(1)
      expect(card).toContain(`stroke-dasharray="8 4"`)
      expect(card).toMatch(/<div class="vh"><table><caption>Response times of Storefront &lt;API&gt; by region/)
      expect(card).toMatch(/<th scope="row">eu-west<\/th><td>13\d ms/)
      expect(card).toMatch(/<th scope="row">us-east<\/th><td>3\d\d ms/)
      expect(card).not.toContain("<script")
      // No monitors, no chart.
      const rest = html.slice(html.indexOf("No monitors here"))
      expect(rest.slice(0, rest.indexOf("</li>"))).not.toContain("<svg")
      expect(plain.id).toBeDefined()
    }))

  it.effect("housekeeping drops hourly rollups after 8 days and daily ones after 90", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored("Old")
      const sql = yield* SqlClient.SqlClient
      const start = yield* Clock.currentTimeMillis
      yield* ingestAndFold([run(monitor.id, "eu-west", Math.floor(start / minute) * minute, 90)])
      const stored = () =>
        Effect.map(
          sql<{ granularity: string }>`
            select granularity from response_time_rollups where monitor_id = ${monitor.id} order by granularity`,
          (rows) => rows.map((row) => row.granularity)
        )
      expect(yield* stored()).toEqual(["day", "hour"])
      // A pass runs as housekeeping starts: it is started after each move of the clock.
      const afterPass = (done: (rows: Array<string>) => boolean) =>
        eventually(stored(), done).pipe(Effect.provide(Housekeeping, { local: true }), Effect.scoped)
      yield* TestClock.adjust(keepHourlyMillis - hour)
      expect(yield* afterPass((rows) => rows.length === 2)).toEqual(["day", "hour"])
      yield* TestClock.adjust(2 * hour)
      expect(yield* afterPass((rows) => rows.length === 1)).toEqual(["day"])
      yield* TestClock.adjust(keepDailyMillis - keepHourlyMillis + day)
      expect(yield* afterPass((rows) => rows.length === 0)).toEqual([])
    }))

  it.effect("a fold adds exactly the rollups of the stored successes; folding again adds nothing", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored("Exact")
      const repo = yield* ResponseTimesRepo
      const responseTimes = yield* ResponseTimes
      const now = yield* Clock.currentTimeMillis
      const hourStart = Math.floor(now / hour) * hour
      // Three batches over two regions, hours and (for the daily rows) days, with failures and a phase missing.
      const batches = [0, 1, 2].map((batch) =>
        Array.from({ length: 40 }, (_, i) =>
          run(
            monitor.id,
            i % 2 === 0 ? "eu-west" : "us-east",
            hourStart - (batch * 40 + i) * 37 * minute,
            50 + ((batch * 40 + i) * 7919) % 900 + (i % 4) / 2,
            i % 9 !== 0
          ))
      )
      for (const batch of batches) yield* storeHistory(batch)
      const okCount = batches.flat().filter((r) => r.ok).length
      expect(yield* responseTimes.fold()).toBe(okCount)

      const stored = Effect.gen(function*() {
        const order = (a: { region: string; bucketStart: number }, b: { region: string; bucketStart: number }) =>
          a.region.localeCompare(b.region) || a.bucketStart - b.bucketStart
        return {
          hour: (yield* repo.ofMonitor(monitor.id, "hour", new Date(0))).sort(order),
          day: (yield* repo.ofMonitor(monitor.id, "day", new Date(0))).sort(order)
        }
      })
      // What rolling the same results up at once gives (what ingest added in its transaction before).
      const expected = (granularity: "hour" | "day") =>
        rollUp(batches.flat()).filter((row) => row.granularity === granularity).map((
          { granularity: _, monitorId, ...rest }
        ) => ({ owner: monitorId, ...rest })).sort((a, b) =>
          a.region.localeCompare(b.region) || a.bucketStart - b.bucketStart
        )
      const once = yield* stored
      expect(once.hour).toEqual(expected("hour"))
      expect(once.day).toEqual(expected("day"))
      expect(once.hour.reduce((sum, row) => sum + row.histogram.count, 0)).toBe(okCount)

      expect(yield* responseTimes.fold()).toBe(0)
      expect(yield* stored).toEqual(once)
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`select 1 from response_time_pending where monitor_id = ${monitor.id}`).toEqual([])
    }))

  it.effect("the fold puts each duration in the domain's histogram bucket, at every bucket bound to a hundredth", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored("Bounds")
      // Probes send durations to a hundredth of a millisecond: the hundredths either side of
      // every bound (the bound itself where it is one: 1, 2, 4 ms...), and what lies below 1 ms
      // and past the last bound.
      const durations = [0, 0.01, 0.99, 1, 59_999.99, 60_100, 120_000]
      for (let index = 1; index < bucketCount; index++) {
        const [lower] = bucketBounds(index)
        durations.push(Math.floor(lower * 100) / 100, Math.ceil(lower * 100) / 100)
      }
      const scheduledAt = midnight + 5 * minute
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into response_time_pending (monitor_id, region, scheduled_at, duration_ms)
        select ${monitor.id}, 'eu-west', ${new Date(scheduledAt)}, d from unnest(${
        durations.map((d) => PgTypes.float8(d))
      }::float8[]) as d`
      expect(yield* (yield* ResponseTimes).fold()).toBe(durations.length)

      const [expected] = rollUp(durations.map((durationMs) => ({
        monitorId: monitor.id,
        region: "eu-west",
        scheduledAt,
        ok: true,
        durationMs,
        timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null }
      })))
      const [stored] = yield* (yield* ResponseTimesRepo).ofMonitor(monitor.id, "hour", new Date(0))
      expect(stored!.histogram.buckets).toEqual(expected!.histogram.buckets)
      expect(stored!.histogram.sumMs).toBeCloseTo(expected!.histogram.sumMs, 6)
      expect({ ...stored!.histogram, sumMs: 0 }).toEqual({ ...expected!.histogram, sumMs: 0 })
      expect(stored!.phases).toEqual(expected!.phases)
    }))

  it.effect("a deleted monitor's pending rows are dropped; the fold goes on with the others", () =>
    Effect.gen(function*() {
      const kept = yield* monitored("Kept")
      const gone = yield* monitored("Gone")
      const now = yield* Clock.currentTimeMillis
      const minuteStart = Math.floor(now / minute) * minute
      yield* (yield* ResultIngest).ingest([
        run(kept.monitor.id, "eu-west", minuteStart, 100),
        run(gone.monitor.id, "eu-west", minuteStart, 200),
        run(gone.monitor.id, "us-east", minuteStart, 300)
      ])
      const sql = yield* SqlClient.SqlClient
      const pending = sql<{ monitorId: string }>`
        select monitor_id from response_time_pending
        where monitor_id in (${kept.monitor.id}, ${gone.monitor.id}) order by monitor_id`
      expect((yield* pending).length).toBe(3)
      yield* (yield* ApiClient).monitors.remove({ params: { id: gone.monitor.id } })

      expect(yield* (yield* ResponseTimes).fold()).toBe(1)
      expect(yield* pending).toEqual([])
      const rows = yield* sql<{ monitorId: string; count: number }>`
        select monitor_id, count from response_time_rollups
        where monitor_id in (${kept.monitor.id}, ${gone.monitor.id}) order by granularity`
      expect(rows).toEqual([{ monitorId: kept.monitor.id, count: 1 }, { monitorId: kept.monitor.id, count: 1 }])
    }))

  it.effect("folds running at once count each row once", () =>
    Effect.gen(function*() {
      const monitors = yield* Effect.all([1, 2, 3, 4].map((i) => monitored(`Busy ${i}`)))
      const now = yield* Clock.currentTimeMillis
      const hourStart = Math.floor(now / hour) * hour
      const results = monitors.flatMap(({ monitor }, m) =>
        Array.from({ length: 150 }, (_, i) =>
          run(monitor.id, i % 2 === 0 ? "eu-west" : "us-east", hourStart - i * 11 * minute, 80 + m * 10 + (i % 13)))
      )
      for (let i = 0; i < results.length; i += 100) {
        yield* storeHistory(results.slice(i, i + 100))
      }

      // Small chunks, so the three folds take turns over many transactions on their own connections.
      const responseTimes = yield* ResponseTimes
      const folded = yield* Effect.all([responseTimes.fold(25), responseTimes.fold(25), responseTimes.fold(25)], {
        concurrency: "unbounded"
      })
      expect(folded.reduce((a, b) =>
        a + b, 0)).toBe(results.length)

      const sql = yield* SqlClient.SqlClient
      const ids = monitors.map(({ monitor }) =>
        monitor.id
      )
      const totals = yield* sql<{ granularity: string; count: number; sumMs: number }>`
        select granularity, sum(count)::int as count, sum(sum_ms)::float8 as sum_ms from response_time_rollups
        where monitor_id in ${sql.in(ids)} group by granularity order by granularity`
      const sumMs = results.reduce((sum, r) => sum + r.durationMs, 0)
      expect(totals).toEqual([
        { granularity: "day", count: results.length, sumMs },
        { granularity: "hour", count: results.length, sumMs }
      ])
      expect(yield* sql`select 1 from response_time_pending where monitor_id in ${sql.in(ids)}`).toEqual([])
    }))

  it.effect("rows of a monitor an ingest batch holds are put back and folded next time, not waited for", () =>
    Effect.gen(function*() {
      const held = yield* monitored("Held")
      const free = yield* monitored("Free")
      const now = yield* Clock.currentTimeMillis
      const minuteStart = Math.floor(now / minute) * minute
      yield* (yield* ResultIngest).ingest([
        run(held.monitor.id, "eu-west", minuteStart, 100),
        run(held.monitor.id, "us-east", minuteStart, 120),
        run(free.monitor.id, "eu-west", minuteStart, 140)
      ])
      const sql = yield* SqlClient.SqlClient
      // Another transaction locks the monitor as ingest does, until told to finish.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`select id from monitors where id = ${held.monitor.id} for update`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(locked)
      const responseTimes = yield* ResponseTimes
      expect(yield* responseTimes.fold()).toBe(1)
      const pending = sql<{ region: string }>`
        select region from response_time_pending where monitor_id = ${held.monitor.id} order by region`
      expect(yield* pending).toEqual([{ region: "eu-west" }, { region: "us-east" }])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      expect(yield* responseTimes.fold()).toBe(2)
      expect(yield* pending).toEqual([])
      const counts = yield* sql<{ monitorId: string; count: number }>`
        select monitor_id, sum(count)::int as count from response_time_rollups
        where granularity = 'hour' and monitor_id in (${held.monitor.id}, ${free.monitor.id})
        group by monitor_id order by count`
      expect(counts).toEqual([{ monitorId: free.monitor.id, count: 1 }, { monitorId: held.monitor.id, count: 2 }])
    }))

  it.effect("the ingest role's fiber folds at start and then every 10 s", () =>
    Effect.gen(function*() {
      const { monitor } = yield* monitored("Folded by the fiber")
      const sql = yield* SqlClient.SqlClient
      const now = yield* Clock.currentTimeMillis
      const minuteStart = Math.floor(now / minute) * minute
      const ingest = yield* ResultIngest
      yield* ingest.ingest([run(monitor.id, "eu-west", minuteStart, 100)])
      const counted = Effect.map(
        sql<{ count: number }>`
          select coalesce(sum(count), 0)::int as count from response_time_rollups
          where granularity = 'hour' and monitor_id = ${monitor.id}`,
        (rows) => rows[0]!.count
      )
      expect(yield* counted).toBe(0)
      yield* Effect.gen(function*() {
        expect(yield* eventually(counted, (count) => count === 1)).toBe(1)
        yield* ingest.ingest([run(monitor.id, "eu-west", minuteStart - minute, 100)])
        // Queued until the next fold, 10 s after the first one ended.
        yield* asleepUntil(now + Duration.toMillis(foldInterval))
        yield* TestClock.adjust(Duration.subtract(foldInterval, Duration.millis(1)))
        yield* realPause(200)
        expect(yield* counted).toBe(1)
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* eventually(counted, (count) => count === 2)).toBe(2)
      }).pipe(Effect.provide(ResponseTimeRollups, { local: true }), Effect.scoped)
    }))
})
