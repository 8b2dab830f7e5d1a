/**
 * No lost checks. 500 monitors every 10 s in the regions `eu` and `us` while probe agents are
 * SIGKILLed and restarted, once both agents of `us` for longer than an interval. Afterwards
 * every run the scheduler published in the window (read back from the jobs stream) must have,
 * for each of its regions, exactly one stored result or one recorded miss.
 */
import { Redis } from "ioredis"

import { sleep, until } from "../Processes.js"
import type { Random } from "../Random.js"
import { regions, type TestBed } from "../TestBed.js"

const monitorCount = 500
const intervalSeconds = 10
const windowMs = 80_000
/** Longer than an interval: the region's backlog comes back stale and is recorded as missed. */
const regionOutageMs = 15_000
const settleLimitMs = 60_000

export interface ChecksReport {
  readonly monitors: number
  readonly windowMs: number
  readonly probeKills: number
  readonly regionOutageMs: number
  /** (monitor, region, time) runs the scheduler published in the window. */
  readonly scheduled: number
  readonly stored: number
  readonly missed: number
  readonly missedByRegion: Record<string, number>
  /** Runs with neither a result nor a miss. */
  readonly lost: number
  readonly storedTwice: number
  readonly storedAndMissed: number
  /** Results a probe published more than once (at-least-once delivery), each stored once. */
  readonly resultsPublishedTwice: number
  readonly settleMs: number
}

interface StreamJob {
  readonly id: string
  readonly monitorId: string
  readonly scheduledAt: number
  readonly regions?: ReadonlyArray<string> | null
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
  const monitorIds = new Set<string>()
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
      monitorIds.add(monitor.id)
    }
  }))
  await until(
    "results from both regions",
    async () => {
      const { rows } = await bed.sql.query<{ regions: number }>(
        "select count(distinct region)::int as regions from check_results"
      )
      return rows[0]!.regions === regions.length
    },
    60_000,
    500
  )

  const windowStart = Date.now()
  const windowEnd = windowStart + windowMs
  log(`  ${monitorCount} monitors checked; killing probes for ${windowMs / 1000} s`)
  let kills = 0
  const outageAt = windowStart + windowMs / 3
  let outageDone = false
  while (Date.now() < windowEnd - 10_000) {
    if (!outageDone && Date.now() >= outageAt) {
      outageDone = true
      await Promise.all(bed.probes.us.map((probe) => probe.kill()))
      kills += 2
      await sleep(regionOutageMs)
      for (const probe of bed.probes.us) probe.start()
      continue
    }
    await sleep(random.between(3_000, 6_000))
    const probe = random.pick(regions.flatMap((region) => bed.probes[region]))
    await probe.kill()
    kills++
    await sleep(random.between(500, 4_000))
    probe.start()
  }
  await sleep(Math.max(0, windowEnd - Date.now()))
  for (const region of regions) for (const probe of bed.probes[region]) if (!probe.alive()) probe.start()

  const redis = new Redis(bed.redis.url)
  try {
    const jobs = (await readStream(redis, `${bed.streamPrefix}jobs`, "job") as Array<StreamJob>)
      .filter((job) => monitorIds.has(job.monitorId) && job.scheduledAt >= windowStart && job.scheduledAt < windowEnd)
    const expected = new Set(jobs.flatMap((job) => (job.regions ?? regions).map((region) => `${job.id}@${region}`)))
    const count = async () => {
      const { rows } = await bed.sql.query<{ key: string; results: number; misses: number }>(
        `select key, sum(results)::int as results, sum(misses)::int as misses from (
           select job_id || '@' || region as key, 1 as results, 0 as misses from check_results where scheduled_at >= $1 and scheduled_at < $2
           union all
           select job_id || '@' || region, 0, 1 from missed_checks where scheduled_at >= $1 and scheduled_at < $2
         ) recorded group by key`,
        [new Date(windowStart), new Date(windowEnd)]
      )
      return new Map(rows.filter((row) => expected.has(row.key)).map((row) => [row.key, row]))
    }
    const settleStart = Date.now()
    let recorded = await count()
    await until(
      "every run stored or recorded as missed",
      async () => {
        recorded = await count()
        return recorded.size === expected.size
      },
      settleLimitMs,
      1_000
    ).catch((error) => log(`  ${String(error)}`))
    const settleMs = Date.now() - settleStart

    const results = await readStream(redis, `${bed.streamPrefix}results`, "result") as Array<
      { jobId: string; region: string }
    >
    const published = new Map<string, number>()
    for (const result of results) {
      published.set(`${result.jobId}@${result.region}`, (published.get(`${result.jobId}@${result.region}`) ?? 0) + 1)
    }
    const rows = [...recorded.values()]
    await removeMonitors(bed, [...monitorIds])
    return {
      monitors: monitorCount,
      windowMs,
      probeKills: kills,
      regionOutageMs,
      scheduled: expected.size,
      stored: rows.filter((row) => row.results === 1 && row.misses === 0).length,
      missed: rows.filter((row) => row.results === 0 && row.misses === 1).length,
      missedByRegion: Object.fromEntries(regions.map((region) => [
        region,
        rows.filter((row) => row.misses > 0 && row.key.endsWith(`@${region}`)).length
      ])),
      lost: expected.size - recorded.size,
      storedTwice: rows.filter((row) => row.results > 1 || row.misses > 1).length,
      storedAndMissed: rows.filter((row) => row.results > 0 && row.misses > 0).length,
      resultsPublishedTwice: [...published.entries()].filter(([key, n]) => n > 1 && expected.has(key)).length,
      settleMs
    }
  } finally {
    redis.disconnect()
  }
}

/** The monitors go when the scenario is done: the load scenario measures the API, not the fleet. */
const removeMonitors = async (bed: TestBed, ids: Array<string>) => {
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
      await bed.apis[0].operator.ok("DELETE", `/api/v1/admin/monitors/${id}`)
    }
  }))
}

/** Every entry's JSON field of a stream, oldest first, in pages. */
const readStream = async (redis: Redis, key: string, field: string) => {
  const values: Array<unknown> = []
  let start = "-"
  while (true) {
    const page = await redis.xrange(key, start, "+", "COUNT", 10_000)
    for (const [, fields] of page) {
      const index = fields.indexOf(field)
      if (index >= 0) values.push(JSON.parse(fields[index + 1]!))
    }
    if (page.length < 10_000) return values
    start = `(${page[page.length - 1]![0]}`
  }
}
