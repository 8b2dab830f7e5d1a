/**
 * The runs no scheduler published: after a gap (no scheduler held the lock) the one that takes
 * over publishes each monitor's latest slot only and records the slots skipped as missed
 * (`scheduler-away`), even when its leadership ends first (its database cut away behind a
 * loopback proxy); the active one does the same after a stall longer than an interval. The
 * regions' history comes from ingest (ResultIngest), the gap from the TestClock, and the
 * expected misses from the slot rule (`slotAt`) and what the test did, never from what the
 * scheduler stored.
 */
import { randomUUID } from "node:crypto"

import { PgClient } from "@effect/sql-pg"
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted, String } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { jobIdOf } from "../../src/domain/CheckJob.js"
import { checkLabels, checksIngested } from "../../src/observability/Metrics.js"
import { serviceAclRules } from "../../src/queue/ProbeAcl.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { slotAt, tickEvery } from "../../src/workers/CheckScheduler.js"
import { checkResult } from "../support/CheckResults.js"
import { eventually, realPause, stepUntil } from "../support/Eventually.js"
import { startScheduler, startSchedulerWith } from "../support/RecordingScheduler.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { storedRuns } from "../support/StoredRuns.js"
import { holdTableLock } from "../support/TableLock.js"
import { tcpProxy } from "../support/TcpProxy.js"
import { embeddedConfig, TestDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, TestServer, TestStack } from "../support/TestServer.js"

const second = 1_000
const minute = 60 * second

/** `status_page_checks_total` of `region`'s misses, in this process. */
const missedCount = (region: string) =>
  Effect.map(
    Effect.sync(() => checksIngested.valueUnsafe(checkLabels(region, "missed"))),
    (state) => state.count
  )

const withIngest = <A, E>(stack: Layer.Layer<A, E>) => ResultIngest.layer.pipe(Layer.provideMerge(stack))
const Stack = withIngest(TestServer())
/** The embedded default (PGlite), the TestClock set to now as TestServer does. */
const Embedded = withIngest(
  TestStack(embeddedConfig()).pipe(Layer.provide(Layer.effectDiscard(TestClock.setTime(Date.now()))))
)

/** A miss as missed_checks holds it. */
interface MissRow {
  readonly jobId: string
  readonly region: string
  readonly monitorId: string
  readonly probe: string
  readonly scheduledAt: number
  readonly recordedAt: number
  readonly reason: string
}

/** The misses the scheduler records for `monitorId` in `region`: one per slot, recorded at `recordedAt`. */
const expectedMisses = (monitorId: string, region: string, slots: ReadonlyArray<number>, recordedAt: number) =>
  slots.map((scheduledAt): MissRow => ({
    jobId: jobIdOf(monitorId, scheduledAt),
    region,
    monitorId,
    probe: "(scheduler)",
    scheduledAt,
    recordedAt,
    reason: "scheduler-away"
  }))

/** The slots of `monitorId` after `after` and before `before` (both slots of its grid). */
const slotsAfter = (monitorId: string, intervalMs: number, after: number, before: number) => {
  const slots: Array<number> = []
  for (let at = slotAt(monitorId, intervalMs, after) + intervalMs; at < before; at += intervalMs) slots.push(at)
  return slots
}

const byKey = (a: MissRow, b: MissRow) =>
  a.monitorId.localeCompare(b.monitorId) || a.region.localeCompare(b.region) || a.scheduledAt - b.scheduledAt

/** Every miss stored for these monitors, in a stable order. */
const missesOf = (monitorIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MissRow>`
      select job_id, region, monitor_id, probe, reason,
             round(extract(epoch from scheduled_at) * 1000)::float8 as scheduled_at,
             round(extract(epoch from recorded_at) * 1000)::float8 as recorded_at
      from missed_checks where monitor_id = any(${monitorIds}::text[])`).pipe(
      Effect.map((rows) => [...rows].sort(byKey))
    )

/**
 * The lines starting with `what` the scheduler logged, once there is one (it logs the count
 * when it has recorded), or none after 20 s (real time).
 */
const recorded = (scheduler: Effect.Success<typeof startScheduler>, what: string) =>
  eventually(
    Effect.sync(() => scheduler.lines().filter((line) => line.message.startsWith(what))),
    (lines) => lines.length > 0,
    20_000
  ).pipe(Effect.map((lines) => lines.map((line) => line.message)))

/** A component with one http monitor per entry of `regions` (null: every region), toward the discard port. */
const monitors = (intervalSeconds: number, regions: ReadonlyArray<ReadonlyArray<string> | null>) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name: `Away ${Math.random()}` } })
    return yield* Effect.forEach(regions, (regions, i) =>
      client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: `http://127.0.0.1:9/away${i}`,
          intervalSeconds,
          timeoutMs: 1000,
          ...(regions === null ? {} : { regions: [...regions] })
        }
      }).pipe(Effect.map((monitor) => monitor.id)))
  })

/**
 * A one-minute monitor run in both regions, then six minutes without a scheduler, ending 3 s
 * before a slot: the last run, the take-over's time, its first slot and the one after.
 */
const ranThenNoScheduler = Effect.gen(function*() {
  const ingest = yield* ResultIngest
  const [monitor] = yield* monitors(60, [["eu", "us"]])
  yield* TestClock.adjust(2 * minute)
  const lastRun = yield* Clock.currentTimeMillis
  for (const region of ["eu", "us"]) {
    yield* ingest.ingest([checkResult(monitor!, region, slotAt(monitor!, minute, lastRun), true)])
  }
  yield* TestClock.adjust(6 * minute)
  const gapEnd = yield* Clock.currentTimeMillis
  yield* TestClock.adjust(slotAt(monitor!, minute, gapEnd) + minute - 3 * second - gapEnd)
  const takeOver = yield* Clock.currentTimeMillis
  const first = slotAt(monitor!, minute, takeOver)
  return { monitor: monitor!, lastRun, takeOver, first, next: first + minute }
})

/**
 * A take-over after six minutes without a scheduler: every slot skipped, in each region with a
 * run since the look-back, is recorded as missed; a result that still arrives replaces its miss.
 */
const takeOverAfterGap = () =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const ingest = yield* ResultIngest
    const sql = yield* SqlClient.SqlClient
    const interval = minute
    const [everywhere, narrowed, paused, old, resumed, checked, raced] = yield* monitors(60, [
      null,
      ["eu", "us"],
      null,
      null,
      null,
      null,
      null
    ])
    const all = [everywhere!, narrowed!, paused!, old!, resumed!, checked!, raced!]
    /** Stores a probe's result of the run of `monitorId` in `region` at the slot at or before `at`. */
    const ran = (monitorId: string, region: string, at: number) =>
      ingest.ingest([checkResult(monitorId, region, slotAt(monitorId, interval, at), true)])

    // Past the monitors' creation (the database's clock), then a run in `eu` 70 minutes before the
    // take-over (before the look-back of an hour) and one in `us` 50 minutes before it.
    yield* TestClock.adjust(2 * minute)
    const longAgo = yield* Clock.currentTimeMillis
    yield* ran(old!, "eu", longAgo)
    yield* TestClock.adjust(20 * minute)
    const withinLookBack = yield* Clock.currentTimeMillis
    yield* ran(old!, "us", withinLookBack)

    // The last runs before the gap, 48 minutes on: `us` of `everywhere` two slots before `eu`.
    yield* TestClock.adjust(44 * minute)
    const lastRun = yield* Clock.currentTimeMillis
    yield* ran(everywhere!, "eu", lastRun)
    yield* ran(everywhere!, "us", lastRun - 2 * interval)
    for (const id of [narrowed!, paused!]) for (const region of ["eu", "us"]) yield* ran(id, region, lastRun)
    for (const id of [resumed!, checked!, raced!]) yield* ran(id, "eu", lastRun)
    // `narrowed` runs in `eu` only from now on; `paused` is paused.
    yield* client.monitors.update({ params: { id: narrowed! }, payload: { regions: ["eu"] } })
    yield* client.monitors.pause({ params: { id: paused! } })

    // The gap: no scheduler for six minutes.
    yield* TestClock.adjust(6 * minute)
    const takeOver = yield* Clock.currentTimeMillis
    // Resumed in the gap (written behind the API's back: the API's pause forgets the regions'
    // runs, so only such a row has a run from before its resume): nothing before the resume.
    const resumedAt = slotAt(resumed!, interval, lastRun) + 2 * interval + 30 * second
    yield* sql`update monitors set resumed_at = ${new Date(resumedAt)} where id = ${resumed!}`
    // A result of a slot in the gap (a run the old scheduler published, stored late): no miss for
    // it, nor before it.
    const checkedSlot = slotAt(checked!, interval, lastRun) + 3 * interval
    yield* ran(checked!, "eu", checkedSlot)
    // The first slot the new scheduler publishes, run and stored before it records the misses
    // (ingest was faster): the slots before it are recorded all the same.
    yield* ran(raced!, "eu", takeOver)

    const scheduler = yield* startScheduler
    const tookOver = yield* recorded(scheduler, "Scheduler took over")

    // Each monitor's first published slot is its latest at the take-over; the misses end before it.
    const first = (id: string) => slotAt(id, interval, takeOver)
    for (const id of [everywhere!, narrowed!, old!, resumed!, checked!, raced!]) {
      expect(scheduler.jobsOf(id)[0]?.scheduledAt).toBe(first(id))
    }
    expect(scheduler.jobsOf(paused!)).toEqual([])
    const expected = [
      ...expectedMisses(
        everywhere!,
        "eu",
        slotsAfter(everywhere!, interval, lastRun, first(everywhere!)),
        takeOver
      ),
      ...expectedMisses(
        everywhere!,
        "us",
        slotsAfter(everywhere!, interval, lastRun - 2 * interval, first(everywhere!)),
        takeOver
      ),
      ...expectedMisses(narrowed!, "eu", slotsAfter(narrowed!, interval, lastRun, first(narrowed!)), takeOver),
      ...expectedMisses(old!, "us", slotsAfter(old!, interval, withinLookBack, first(old!)), takeOver),
      ...expectedMisses(
        resumed!,
        "eu",
        slotsAfter(resumed!, interval, lastRun, first(resumed!)).filter((slot) => slot >= resumedAt),
        takeOver
      ),
      ...expectedMisses(
        checked!,
        "eu",
        slotsAfter(checked!, interval, checkedSlot, first(checked!)),
        takeOver
      ),
      ...expectedMisses(raced!, "eu", slotsAfter(raced!, interval, lastRun, first(raced!)), takeOver)
    ].sort(byKey)
    const misses = yield* missesOf(all)
    expect(misses).toEqual(expected)
    // What the test counts on: five or six slots skipped in the six minutes, about 49 since `old`'s `us` run.
    expect(misses.filter((m) => m.monitorId === everywhere! && m.region === "eu").length).toBeGreaterThanOrEqual(4)
    expect(misses.filter((m) => m.monitorId === old!).length).toBeGreaterThanOrEqual(48)
    expect(misses.filter((m) => m.monitorId === raced!).length).toBeGreaterThanOrEqual(4)
    for (const id of [resumed!, checked!]) expect(misses.filter((m) => m.monitorId === id).length).toBeGreaterThan(0)
    expect(tookOver).toEqual([
      `Scheduler took over: ${expected.length} runs no scheduler published recorded as missed`
    ])

    // A result that still arrives (a probe ran the job after all) replaces its miss: the latest
    // one, within the bound ingest admits results in (docs/monitor-fleet.md, "Result admission").
    const late = misses.filter((m) => m.monitorId === everywhere! && m.region === "us").at(-1)
    yield* ingest.ingest([checkResult(everywhere!, "us", late!.scheduledAt, true)])
    const runs = yield* storedRuns([everywhere!])
    expect(runs.filter((run) => run.jobId === late!.jobId && run.region === "us")).toEqual([
      { jobId: late!.jobId, region: "us", results: 1, misses: 0 }
    ])
    expect(runs.filter((run) => run.misses === 1)).toHaveLength(
      expected.filter((m) => m.monitorId === everywhere!).length - 1
    )
    // The history lists the others with their reason and probe.
    const history = yield* client.monitors.results({ params: { id: everywhere! }, query: { limit: 500 } })
    const listed = history.filter((run) => run.outcome === "missed")
    expect(listed).toHaveLength(expected.filter((m) => m.monitorId === everywhere!).length - 1)
    expect(new Set(listed.map((run) => `${run.probe} ${run.reason}`))).toEqual(
      new Set(["(scheduler) scheduler-away"])
    )
  })

// Each test on a database of its own: a scheduler records the runs of every monitor there, and logs their count.
it.layer(Stack, { timeout: "120 seconds" })("runs no scheduler published, on taking over", (it) => {
  it.effect(
    "a take-over after a gap records the slots skipped as missed, in each region with a run since the look-back",
    takeOverAfterGap
  )
})

it.layer(Embedded, { timeout: "120 seconds" })("runs no scheduler published, on the embedded PGlite", (it) => {
  it.effect("a take-over after a gap records the slots skipped as missed, as on PostgreSQL", takeOverAfterGap)
})

it.layer(Stack, { timeout: "120 seconds" })("runs no scheduler published, after a stall", (it) => {
  it.effect("stalled longer than an interval, the scheduler records the slots it skipped as missed", () =>
    Effect.gen(function*() {
      const ingest = yield* ResultIngest
      const interval = 10 * second
      const [fast] = yield* monitors(10, [null])
      yield* TestClock.adjust(2 * minute)
      const startedAt = yield* Clock.currentTimeMillis
      // A run in `eu` at the slot before the first one the scheduler publishes: the take-over skips none.
      yield* ingest.ingest([checkResult(fast!, "eu", slotAt(fast!, interval, startedAt) - interval, true)])
      const missedBefore = yield* missedCount("eu")
      const scheduler = yield* startScheduler
      const tookOver = yield* recorded(scheduler, "Scheduler took over")
      expect(yield* missesOf([fast!])).toEqual([])

      // Stalled inside a tick for five minutes, as in schedulerClock.
      yield* scheduler.gate.close
      yield* TestClock.adjust(tickEvery)
      const stalledAt = yield* Clock.currentTimeMillis
      const ticksBefore = scheduler.ticks()
      yield* TestClock.adjust("5 minutes")
      yield* scheduler.gate.open
      yield* eventually(Effect.sync(() => scheduler.ticks()), (n) => n > ticksBefore)
      yield* realPause(50)
      yield* TestClock.adjust(tickEvery)
      const resumedAt = yield* Clock.currentTimeMillis
      const fellBehind = yield* recorded(scheduler, "Scheduler fell behind")

      // The slots after the stalled tick's and before the latest at the resumption, in `eu` only:
      // `us` has no run.
      const skipped = slotsAfter(fast!, interval, stalledAt, slotAt(fast!, interval, resumedAt))
      expect(skipped.length).toBeGreaterThan(25)
      expect(yield* missesOf([fast!])).toEqual(expectedMisses(fast!, "eu", skipped, resumedAt))
      expect(fellBehind).toEqual([
        `Scheduler fell behind: ${skipped.length} runs no scheduler published recorded as missed`
      ])
      expect(tookOver).toEqual(["Scheduler took over: 0 runs no scheduler published recorded as missed"])
      // Counted as the region's misses, as ingest counts a probe's.
      expect((yield* missedCount("eu")) - missedBefore).toBe(skipped.length)
      expect(scheduler.jobsOf(fast!).map((job) => job.scheduledAt).filter((at) => skipped.includes(at))).toEqual([])
    }))
})

it.layer(Stack, { timeout: "120 seconds" })("runs no scheduler published, when leadership ends first", (it) => {
  it.effect(
    "a take-over cut off from the database before it recorded the slots it skipped records them once it is back",
    () =>
      Effect.gen(function*() {
        const ingest = yield* ResultIngest
        const interval = minute
        const { first, lastRun, monitor, next, takeOver } = yield* ranThenNoScheduler

        // The scheduler reaches PostgreSQL through a proxy, cut as soon as its first publish has
        // gone out: its lock goes, and so does the recording of the slots it skipped, which
        // `missed_checks` locked by the test holds until then.
        const url = new URL(yield* TestDatabaseUrl)
        const proxy = yield* tcpProxy(Number(url.port || 5432), url.hostname)
        url.host = `127.0.0.1:${proxy.port}`
        const unlock = yield* holdTableLock("missed_checks")
        const scheduler = yield* startSchedulerWith({
          database: PgClient.layer({
            url: Redacted.make(url.toString()),
            transformQueryNames: String.camelToSnake,
            transformResultNames: String.snakeToCamel
          }).pipe(Layer.orDie),
          afterPublish: (n) => n === 1 ? Effect.promise(() => proxy.cut()) : Effect.void
        })
        yield* unlock
        // A probe ran the job in `eu` and its result is stored; `us`'s still waits in Redis.
        yield* ingest.ingest([checkResult(monitor!, "eu", first, true)])
        const active = () => scheduler.lines().filter((line) => line.message.startsWith("Scheduler active"))
        const tookOver = () =>
          scheduler.lines().filter((line) =>
            line.message.startsWith("Scheduler took over") && line.message.endsWith("recorded as missed")
          )

        // The database is away past the next slot, then back: the scheduler takes over again at
        // `next`, and the last run stored in `eu` before it is the slot the first leadership published.
        yield* stepUntil(() => false, 5)
        expect(active()).toHaveLength(1)
        yield* Effect.promise(() => proxy.restore())
        yield* stepUntil(() => active().length >= 2 && tookOver().length >= 2, 15)
        yield* eventually(Effect.sync(tookOver), (lines) => lines.length >= 2, 5_000)
        // On a loaded machine a third take-over in the same slot (a pooled connection left dead by
        // the cut) can publish `next` again: a job published twice is one run, stored once.
        expect([...new Set(scheduler.jobsOf(monitor!).map((job) => job.scheduledAt))]).toEqual([first, next])

        // Every slot between the last runs and the first published in each region recorded once,
        // whichever leadership wrote it: in `us` that takes in `first` (its result is not stored yet).
        const skipped = slotsAfter(monitor!, interval, lastRun, first)
        expect(skipped.length).toBeGreaterThanOrEqual(5)
        const misses = yield* missesOf([monitor!])
        const withoutRecordedAt = ({ recordedAt: _, ...miss }: MissRow) => miss
        expect(misses.map(withoutRecordedAt)).toEqual([
          ...expectedMisses(monitor!, "eu", skipped, takeOver),
          ...expectedMisses(monitor!, "us", [...skipped, first], takeOver)
        ].map(withoutRecordedAt))
        for (const miss of misses) expect(miss.recordedAt).toBeGreaterThanOrEqual(takeOver)
        expect(tookOver().length).toBeGreaterThanOrEqual(2)
        expect(scheduler.warnings().map((line) => line.message)).toContain(
          "Scheduler took over: recording the runs not published failed; retrying"
        )
      })
  )
})

it.layer(Stack, { timeout: "120 seconds" })(
  "runs no scheduler published, when the first publish fails part-way",
  (it) => {
    it.effect(
      "a take-over whose first publish reaches one region of two records the slots it skipped all the same",
      () =>
        Effect.gen(function*() {
          const ingest = yield* ResultIngest
          const interval = minute
          const { first, lastRun, monitor, next, takeOver } = yield* ranThenNoScheduler

          // The scheduler signs in to Redis as the service's user, which may not append to `jobs:us`
          // yet: each publish reaches `eu` and then fails, and its leadership with it.
          const { prefix, redis } = yield* redisPrefix
          const user = `test-scheduler-${randomUUID()}`
          const password = randomUUID()
          const rules = serviceAclRules(prefix).map((rule) => rule === `~${prefix}jobs:*` ? `~${prefix}jobs:eu` : rule)
          yield* Effect.acquireRelease(
            Effect.promise(() => redis.call("ACL", "SETUSER", user, "reset", "on", `>${password}`, ...rules)),
            () => Effect.promise(() => redis.call("ACL", "DELUSER", user))
          )
          const url = new URL(redisUrl)
          url.username = user
          url.password = password
          const transport = yield* RedisJobTransport.make({ url: url.toString(), prefix })
          const scheduler = yield* startSchedulerWith({ transport })
          const published = (region: string) =>
            Effect.promise(() => redis.xrange(`${prefix}jobs:${region}`, "-", "+")).pipe(
              Effect.map((entries) => entries.map(([, fields]) => JSON.parse(fields[1]!).scheduledAt as number))
            )
          yield* eventually(
            Effect.sync(() => scheduler.warnings().map((line) => line.message)),
            (messages) => messages.includes("Scheduler stopped; standing by to take over again")
          )
          expect(yield* published("eu")).toContain(first)
          expect(yield* published("us")).toEqual([])
          // A probe ran the job in `eu` and its result is stored.
          yield* ingest.ingest([checkResult(monitor!, "eu", first, true)])

          // Past the next slot, then `us` is granted: the take-over then publishes `next` to both.
          yield* stepUntil(() => false, 5)
          yield* Effect.promise(() => redis.call("ACL", "SETUSER", user, `~${prefix}jobs:us`))
          for (let round = 0; round < 15 && !(yield* published("us")).includes(next); round++) {
            yield* TestClock.adjust("1 second")
            yield* realPause(50)
          }
          expect(yield* published("us")).toEqual([next])

          // Every slot between the last runs and the first published in each region recorded once:
          // in `eu` by the take-over whose publish failed, in `us` up to `first` (never published there).
          const skipped = slotsAfter(monitor!, interval, lastRun, first)
          expect(skipped.length).toBeGreaterThanOrEqual(5)
          const expected = [
            ...expectedMisses(monitor!, "eu", skipped, takeOver),
            ...expectedMisses(monitor!, "us", [...skipped, first], takeOver)
          ]
          const withoutRecordedAt = ({ recordedAt: _, ...miss }: MissRow) => miss
          const misses = yield* eventually(missesOf([monitor!]), (rows) => rows.length >= expected.length, 10_000)
          expect(misses.map(withoutRecordedAt)).toEqual(expected.map(withoutRecordedAt))
          for (const miss of misses) expect(miss.recordedAt).toBeGreaterThanOrEqual(takeOver)
        })
    )
  }
)
