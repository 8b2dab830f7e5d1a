/**
 * No lost checks. 500 monitors every 10 s in the regions `eu` and `us` while probe agents are
 * SIGKILLed and restarted, once both agents of `us` for longer than an interval. The expected
 * runs come from the client and the clock: every monitor the test created, at every slot of the
 * scheduler's rule (`slotAt`) in the window, in both regions. Afterwards each must have exactly
 * one stored result or one recorded miss, and the monitors' target (its own request log, which
 * tells the probes apart by their source addresses) must have seen every stored result's check,
 * and no check twice unless the probe that made it first was killed (at least once). Misses are
 * counted apart when their region had a probe up throughout their interval: a sibling could
 * have taken over the job of a killed probe in time.
 */
import type pg from "pg"

import type { ManagedProcess } from "../Processes.js"
import { sleep, until } from "../Processes.js"
import type { Random } from "../Random.js"
import {
  checkRequests,
  type ProbeKill,
  repeatedChecks,
  requestsByRun,
  runKey,
  slotsIn,
  type StoredResult
} from "../Runs.js"
import { type Region, regions, type TestBed } from "../TestBed.js"
import {
  createPushMonitors,
  judgePushes,
  lastDeadline,
  planPushes,
  type PushJudgement,
  sendPushes
} from "./pushPlan.js"

const monitorCount = 500
const intervalSeconds = 10
const intervalMs = intervalSeconds * 1000
const windowMs = 80_000
/** Longer than an interval: the region's backlog comes back stale and is recorded as missed. */
const regionOutageMs = 15_000
const settleLimitMs = 60_000

export interface ChecksReport {
  readonly monitors: number
  readonly windowMs: number
  /** From the last monitor created until the target had seen each of them from both regions. */
  readonly loadedAfterMs: number
  readonly probeKills: number
  readonly regionOutageMs: number
  /** (monitor, slot, region) runs due in the window by the slot rule: monitors × slots × regions. */
  readonly expected: number
  readonly stored: number
  readonly missed: number
  readonly missedByRegion: Record<string, number>
  /**
   * Misses of runs whose region had a probe up (ready, not killed) at every moment from their
   * slot to one interval after it: whenever a probe was killed holding the job, a sibling was
   * there to claim it in time. The others' region had no probe up for part of that time (the
   * outage, kills overlapping a restart, and the backlog a restarted probe finds).
   */
  readonly missedWhileRegionUp: number
  readonly missedWhileRegionDown: number
  /** Expected runs with neither a result nor a miss. */
  readonly lost: number
  readonly storedAndMissed: number
  /** Results or misses in the window at a time that is no slot of their monitor. */
  readonly offSlot: number
  /** The target's log: requests for the monitors in the window, and from no probe's address. */
  readonly targetRequests: number
  readonly targetRequestsFromUnknownSource: number
  /** Stored results whose check the target never saw (from their probe, within 2 s of `checked_at`). */
  readonly storedWithoutRequest: number
  /** Runs the target saw twice, after a kill of the probe that made the first request, and otherwise. */
  readonly deliveredTwiceAfterKill: number
  readonly deliveredTwice: number
  /** A few of the runs behind each failure, for the verdicts' details. */
  readonly examples: {
    readonly records: ReadonlyArray<string>
    readonly target: ReadonlyArray<string>
    readonly missedWhileRegionUp: ReadonlyArray<string>
  }
  readonly settleMs: number
  /** The push monitors' slots in the window, judged against the client's pushes (pushPlan.ts). */
  readonly push: PushJudgement & { readonly sendFailures: ReadonlyArray<string>; readonly latestSendMs: number }
}

export const runChecksScenario = async (
  bed: TestBed,
  random: Random,
  log: (line: string) => void
): Promise<ChecksReport> => {
  const admin = bed.apis[1].operator
  const components: Array<string> = []
  for (let i = 0; i < 10; i++) {
    components.push((await admin.ok<{ id: string }>("POST", "/api/v1/admin/components", { name: `Fleet ${i}` })).id)
  }
  // First: a push monitor's first slot is not judged, and the window starts well after it.
  const pushMonitors = await createPushMonitors(bed, components[0]!)
  /** Target number -> monitor id: each monitor checks a path of its own. */
  const monitorOf = new Map<number, string>()
  let nextMonitor = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (nextMonitor < monitorCount) {
      const n = nextMonitor++
      const monitor = await admin.ok<{ id: string }>("POST", "/api/v1/admin/monitors", {
        componentId: components[n % components.length],
        type: "http",
        url: bed.targets.url(n),
        intervalSeconds,
        timeoutMs: 5_000,
        regions: [...regions]
      })
      monitorOf.set(n, monitor.id)
    }
  }))
  const monitorIds = [...monitorOf.values()]

  // The window starts once the scheduler runs every monitor: the target has seen each from both
  // regions (a new monitor is checked at its current slot, then at every slot after it).
  const createdAt = Date.now()
  await until(
    "every monitor checked from both regions",
    () => {
      const seen = new Set(checkRequests(bed.targets.log, monitorOf).requests.map((r) => `${r.monitorId}@${r.region}`))
      return seen.size === monitorCount * regions.length
    },
    120_000,
    500
  )
  const windowStart = Date.now()
  const windowEnd = windowStart + windowMs
  const expected = new Set(
    monitorIds.flatMap((id) =>
      slotsIn(id, intervalMs, windowStart, windowEnd).flatMap((slot) =>
        regions.map((region) => runKey(id, slot, region))
      )
    )
  )

  const pushes = planPushes(pushMonitors, random, windowStart, windowEnd)
  const pushing = sendPushes(bed, pushes)
  log(`  ${monitorCount} monitors checked; killing probes for ${windowMs / 1000} s, pushing to ${pushMonitors.length}`)
  const kills: Array<ProbeKill> = []
  /** Per probe, when it was up: from "probe ready" (every probe is before the window) until its kill. */
  const upTimes = new Map<ManagedProcess, Array<{ from: number; to: number }>>(
    regions.flatMap((region) => bed.probes[region].map((probe) => [probe, [{ from: 0, to: Infinity }]]))
  )
  const kill = async (probe: ManagedProcess) => {
    const sentAt = Date.now()
    await probe.kill()
    kills.push({ probe: probe.name.replace(/^probe-/, ""), sentAt, goneAt: Date.now() })
    const last = upTimes.get(probe)!.at(-1)
    if (last !== undefined && last.to === Infinity) last.to = sentAt
  }
  const start = (probe: ManagedProcess) => {
    probe.start()
    probe.waitForOutput("probe ready", 60_000).then(
      () => upTimes.get(probe)!.push({ from: Date.now(), to: Infinity }),
      () => undefined
    )
  }
  /** Whether some probe of `region` was up at every moment of `[from, to]`. */
  const regionUpThroughout = (region: string, from: number, to: number) => {
    const ups = bed.probes[region as Region].flatMap((probe) => upTimes.get(probe)!)
    let covered = from
    for (let extended = true; extended && covered <= to;) {
      extended = false
      for (const up of ups) {
        if (up.from <= covered && up.to > covered) {
          covered = up.to
          extended = true
        }
      }
    }
    return covered > to
  }
  const outageAt = windowStart + windowMs / 3
  let outageDone = false
  while (Date.now() < windowEnd - 10_000) {
    if (!outageDone && Date.now() >= outageAt) {
      outageDone = true
      await Promise.all(bed.probes.us.map(kill))
      await sleep(regionOutageMs)
      for (const probe of bed.probes.us) start(probe)
      continue
    }
    await sleep(random.between(3_000, 6_000))
    const probe = random.pick(regions.flatMap((region) => bed.probes[region]))
    await kill(probe)
    await sleep(random.between(500, 4_000))
    start(probe)
  }
  await sleep(Math.max(0, windowEnd - Date.now()))
  for (const region of regions) for (const probe of bed.probes[region]) if (!probe.alive()) start(probe)
  const sent = await pushing

  const { lost, offSlot, repeated, requests, rows, settleMs, unknownSource, withoutRequest } = await settledRuns({
    sql: bed.sql,
    monitorIds,
    expected,
    windowStart,
    windowEnd,
    intervalMs,
    targetLog: bed.targets.log,
    monitorOf,
    kills,
    log
  })
  const repeatedWithoutKill = repeated.filter((r) => !r.afterKill)
  const missedRows = rows.filter((row) => row.results === 0 && row.misses === 1)
  const missedWhileRegionUp = missedRows.filter((row) =>
    regionUpThroughout(row.region, row.scheduled_at, row.scheduled_at + intervalMs)
  )
  await sleep(Math.max(0, lastDeadline(pushes) - Date.now()))
  const push = { ...await judgePushes(bed.sql, pushes), sendFailures: sent.failures, latestSendMs: sent.latestMs }
  await removeMonitors(bed, [...monitorIds, ...pushMonitors.map((monitor) => monitor.id)])
  return {
    push,
    monitors: monitorCount,
    windowMs,
    loadedAfterMs: windowStart - createdAt,
    probeKills: kills.length,
    regionOutageMs,
    expected: expected.size,
    stored: rows.filter((row) => row.results === 1 && row.misses === 0).length,
    missed: missedRows.length,
    missedByRegion: Object.fromEntries(regions.map((region) => [
      region,
      rows.filter((row) => row.misses > 0 && row.region === region).length
    ])),
    missedWhileRegionUp: missedWhileRegionUp.length,
    missedWhileRegionDown: missedRows.length - missedWhileRegionUp.length,
    lost: lost.length,
    storedAndMissed: rows.filter((row) => row.results > 0 && row.misses > 0).length,
    offSlot: offSlot.length,
    targetRequests: requests.filter((r) => r.at >= windowStart && r.at < windowEnd).length,
    targetRequestsFromUnknownSource: unknownSource,
    storedWithoutRequest: withoutRequest.length,
    deliveredTwiceAfterKill: repeated.length - repeatedWithoutKill.length,
    deliveredTwice: repeatedWithoutKill.length,
    examples: {
      records: [
        ...lost.slice(0, 5).map((key) => `lost ${key}`),
        ...offSlot.slice(0, 5).map((key) => `off slot ${key}`)
      ],
      target: [
        ...withoutRequest.slice(0, 5).map((key) => `stored without a request ${key}`),
        ...repeatedWithoutKill.slice(0, 5).map((r) =>
          `requested twice ${r.key}: by ${r.first.probe} at ${r.first.at}, by ${r.repeat.probe} at ${r.repeat.at}`
        )
      ],
      missedWhileRegionUp: missedWhileRegionUp.slice(0, 5).map((row) =>
        runKey(row.monitor_id, row.scheduled_at, row.region)
      )
    },
    settleMs
  }
}

/**
 * The record of a window once it settles: waits (at most `settleLimitMs`) until every expected run
 * is stored or recorded as missed, then a second for checks still in flight to reach the target,
 * and pairs the stored results with the target's log.
 */
export const settledRuns = async (options: {
  readonly sql: pg.Client
  readonly monitorIds: ReadonlyArray<string>
  readonly expected: ReadonlySet<string>
  readonly windowStart: number
  readonly windowEnd: number
  readonly intervalMs: number
  readonly targetLog: Parameters<typeof checkRequests>[0]
  readonly monitorOf: Parameters<typeof checkRequests>[1]
  readonly kills: Parameters<typeof repeatedChecks>[2]
  readonly log: (line: string) => void
}) => {
  const { expected, intervalMs, monitorIds, sql, windowEnd, windowStart } = options
  const count = () => recordedRuns(sql, monitorIds, windowStart, windowEnd)
  const settleStart = Date.now()
  let recorded = await count()
  await until(
    "every expected run stored or recorded as missed",
    async () => {
      recorded = await count()
      return [...expected].every((key) => recorded.has(key))
    },
    settleLimitMs,
    1_000
  ).catch((error) => options.log(`  ${String(error)}`))
  const settleMs = Date.now() - settleStart
  // Checks still in flight when the records settled reach the target within their time-out.
  await sleep(1_000)

  const { requests, unknownSource } = checkRequests(options.targetLog, options.monitorOf)
  // The stored results around the window, to pair with the target's requests.
  const { rows: results } = await sql.query<StoredResult>(
    `select monitor_id as "monitorId", region, probe,
            round(extract(epoch from scheduled_at) * 1000)::float8 as "scheduledAt",
            round(extract(epoch from checked_at) * 1000)::float8 as "checkedAt"
       from check_results where monitor_id = any($1) and scheduled_at >= $2 and scheduled_at < $3`,
    [monitorIds, new Date(windowStart - 2 * intervalMs), new Date(windowEnd + intervalMs)]
  )
  const requested = requestsByRun(requests, results, intervalMs)
  return {
    settleMs,
    rows: [...expected].flatMap((key) => recorded.get(key) ?? []),
    lost: [...expected].filter((key) => !recorded.has(key)),
    offSlot: [...recorded.keys()].filter((key) => !expected.has(key)),
    requests,
    unknownSource,
    withoutRequest: requested.withoutRequest
      .map((result) => runKey(result.monitorId, result.scheduledAt, result.region))
      .filter((key) => expected.has(key)),
    repeated: repeatedChecks(requested.runs, expected, options.kills)
  }
}

/** What is stored of one run (monitor, slot, region): its results and its recorded misses. */
export interface RecordedRun {
  readonly monitor_id: string
  readonly scheduled_at: number
  readonly region: string
  readonly results: number
  readonly misses: number
}

/** The runs of `monitorIds` scheduled in `[from, to)` that have a result or a miss stored, by `runKey`. */
export const recordedRuns = async (sql: pg.Client, monitorIds: ReadonlyArray<string>, from: number, to: number) => {
  const { rows } = await sql.query<RecordedRun>(
    `select monitor_id, scheduled_at, region, sum(results)::int as results, sum(misses)::int as misses from (
       select monitor_id, round(extract(epoch from scheduled_at) * 1000)::float8 as scheduled_at, region, 1 as results, 0 as misses
         from check_results where monitor_id = any($1) and scheduled_at >= $2 and scheduled_at < $3
       union all
       select monitor_id, round(extract(epoch from scheduled_at) * 1000)::float8, region, 0, 1
         from missed_checks where monitor_id = any($1) and scheduled_at >= $2 and scheduled_at < $3
     ) recorded group by monitor_id, scheduled_at, region`,
    [monitorIds, new Date(from), new Date(to)]
  )
  return new Map(rows.map((row) => [runKey(row.monitor_id, row.scheduled_at, row.region), row]))
}

/** The monitors go when the scenario is done: the load scenario measures the API, not the fleet. */
const removeMonitors = async (bed: TestBed, ids: Array<string>) => {
  const left = [...ids]
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = left.pop(); id !== undefined; id = left.pop()) {
      await bed.apis[0].operator.ok("DELETE", `/api/v1/admin/monitors/${id}`)
    }
  }))
}
