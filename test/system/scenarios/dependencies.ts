/**
 * Dependencies failing under read load. Redis is stopped for 30 s; PostgreSQL connections are
 * killed (`pg_terminate_backend`) and then the database is taken away altogether (the proxy in
 * front of it refuses connections). Public reads must keep answering from the snapshot, writes
 * answer 503 with an error body while the database is away, `/readyz` says 503 then and 200
 * after, and every process recovers by itself: writes succeed, changes reach the other instance,
 * checks are stored again. The checks made while the database was away wait in Redis: each check
 * the monitors' target saw then must be stored after, and each run due then by the slot rule
 * stored once or recorded as missed (the scheduler records the slots it did not publish).
 */
import { publicGet } from "../Client.js"
import { sleep, until } from "../Processes.js"
import { checkRequests, requestsByRun, runKey, slotsIn, type StoredResult } from "../Runs.js"
import { regions, type TestBed } from "../TestBed.js"

const redisDownMs = 30_000
const databaseAwayMs = 15_000
const readers = 16
const publicPaths = ["/api/v1/status", "/api/v1/status/components", "/api/v1/status/incidents", "/"]
/** The scenario's monitors, on targets of their own: enough that runs fall due while the database is away. */
const monitorCount = 50
const intervalMs = 10_000
const firstTarget = 9_000

export interface DependenciesReport {
  readonly publicReads: {
    readonly total: number
    readonly failed: number
    readonly byPhase: Record<string, { total: number; failed: number }>
  }
  readonly redisDownMs: number
  readonly checksStoredAgainAfterRedisMs: number | null
  readonly connectionsTerminated: number
  readonly writesFailedAfterTermination: number
  readonly databaseAwayMs: number
  readonly writesWhileAway: {
    readonly total: number
    readonly answered503WithErrorBody: number
    readonly other: Array<string>
  }
  readonly readyzWhileAway: ReadonlyArray<number>
  /** From the database's return until `/readyz` answered 200 on both instances; null if it did not within 30 s. */
  readonly readyzBackAfterMs: number | null
  /** The runs of the scenario's monitors due while the database was away, by the slot rule. */
  readonly runsDueWhileAway: {
    readonly expected: number
    readonly stored: number
    readonly missed: number
    /** The misses by their reason (`late`: a probe's; `scheduler-away`: the scheduler's). */
    readonly missedByReason: Record<string, number>
    /** Neither stored nor recorded as missed. */
    readonly lost: number
    /** Both stored and recorded as missed: the invariant broken. */
    readonly both: number
    readonly examples: ReadonlyArray<string>
  }
  /**
   * Checks the monitors' target saw from the scenario's start until the database returned, and
   * how many of them were never stored; those from 5 s before Redis's SIGKILL until it was back
   * are not judged (`lostWithRedis`: what a Redis that lost its data loses).
   */
  readonly checksStored: { readonly requests: number; readonly notStored: number; readonly lostWithRedis: number }
  readonly outageRunsSettledAfterMs: number
  readonly writesRecoveredAfterMs: number | null
  readonly changeSeenByOtherInstanceAfterMs: number | null
  readonly checksStoredAgainAfterDatabaseMs: number | null
}

const isErrorBody = (body: unknown) =>
  typeof body === "object" && body !== null && typeof (body as { _tag?: unknown })._tag === "string" &&
  typeof (body as { message?: unknown }).message === "string"

export const runDependenciesScenario = async (
  bed: TestBed,
  log: (line: string) => void
): Promise<DependenciesReport> => {
  const [first, second] = bed.apis
  // Monitors of its own, so the fleet has something to recover (the checks scenario removed its own).
  const component = await first.operator.ok<{ id: string }>("POST", "/api/v1/admin/components", {
    name: "Dependencies"
  })
  const monitorOf = new Map<number, string>()
  for (let n = firstTarget; n < firstTarget + monitorCount; n++) {
    const monitor = await first.operator.ok<{ id: string }>("POST", "/api/v1/admin/monitors", {
      componentId: component.id,
      type: "http",
      url: bed.targets.url(n),
      intervalSeconds: intervalMs / 1000,
      regions: [...regions]
    })
    monitorOf.set(n, monitor.id)
  }
  const monitorIds = [...monitorOf.values()]
  const monitorsCreatedAt = Date.now()

  // Read load on both instances for the whole scenario, counted per phase.
  let phase = "steady"
  const byPhase: Record<string, { total: number; failed: number }> = {}
  const failures: Array<string> = []
  let reading = true
  const reader = async (n: number) => {
    for (let i = n; reading; i++) {
      const base = bed.apis[i % 2]!.baseUrl
      const path = publicPaths[i % publicPaths.length]!
      const counts = (byPhase[phase] ??= { total: 0, failed: 0 })
      counts.total++
      try {
        const answer = await publicGet(base, path)
        if (answer.status !== 200) {
          counts.failed++
          if (failures.length < 20) failures.push(`${phase}: ${path} ${answer.status}`)
        }
      } catch (error) {
        counts.failed++
        if (failures.length < 20) failures.push(`${phase}: ${path} ${String(error)}`)
      }
    }
  }
  const load = Promise.all(Array.from({ length: readers }, (_, n) => reader(n)))

  /** Milliseconds from now until a result checked after `since` is stored, or null after `limitMs`. */
  const checksStoredAgain = async (since: Date, limitMs: number) => {
    const startedAt = Date.now()
    const stored = await until(
      "checks stored again",
      async () => {
        const { rows } = await bed.sql.query<{ n: number }>(
          "select count(*)::int as n from check_results where checked_at > $1",
          [since]
        )
        return rows[0]!.n > 0
      },
      limitMs,
      500
    ).then(() => true, () => false)
    return stored ? Date.now() - startedAt : null
  }

  try {
    await sleep(3_000)
    log("  Redis stopped")
    phase = "redis-down"
    const redisKilledAt = Date.now()
    await bed.redis.kill()
    await sleep(redisDownMs)
    await bed.redis.start()
    const redisBack = new Date()
    phase = "redis-back"
    log("  Redis back")
    const checksStoredAgainAfterRedisMs = await checksStoredAgain(redisBack, 60_000)

    phase = "connections-killed"
    let connectionsTerminated = 0
    let writesFailedAfterTermination = 0
    for (let round = 0; round < 3; round++) {
      const { rows } = await bed.sql.query<{ terminated: boolean }>(
        "select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [bed.databaseName]
      )
      connectionsTerminated += rows.filter((row) => row.terminated).length
      await sleep(1_000)
      // A write right after its connection died: the pool must reconnect, not keep a dead connection.
      for (const api of bed.apis) {
        const answer = await api.operator.request("PUT", `/api/v1/admin/components/${component.id}`, {
          description: `round ${round}`
        })
        if (answer.status !== 200) writesFailedAfterTermination++
      }
    }
    log(`  ${connectionsTerminated} PostgreSQL connections terminated`)

    phase = "database-away"
    const cutAt = Date.now()
    await bed.database.cut()
    log("  database away")
    const awayUntil = Date.now() + databaseAwayMs
    const writesWhileAway = { total: 0, answered503WithErrorBody: 0, other: [] as Array<string> }
    const readyzWhileAway: Array<number> = []
    await sleep(1_000)
    while (Date.now() < awayUntil - 1_000) {
      for (const api of bed.apis) {
        const answer = await api.operator.request("POST", "/api/v1/admin/incidents", {
          title: "While the database is away",
          message: "m"
        })
        writesWhileAway.total++
        if (answer.status === 503 && isErrorBody(answer.body)) writesWhileAway.answered503WithErrorBody++
        else if (writesWhileAway.other.length < 10) {
          writesWhileAway.other.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
        }
        readyzWhileAway.push((await publicGet(api.baseUrl, "/readyz")).status)
      }
      await sleep(1_000)
    }
    await sleep(Math.max(0, awayUntil - Date.now()))
    await bed.database.restore()
    const databaseBack = new Date()
    const restoredAt = databaseBack.getTime()
    phase = "database-back"
    log("  database back")
    const readyzBackAfterMs = await until(
      "/readyz 200 on both instances",
      async () =>
        (await Promise.all(bed.apis.map((api) => publicGet(api.baseUrl, "/readyz").catch(() => null))))
          .every((answer) => answer?.status === 200),
      30_000,
      100
    ).then(() => Date.now() - restoredAt, () => null)

    const recoveredAt = Date.now()
    const writesRecovered = await until(
      "writes succeed on both instances",
      async () => {
        const answers = await Promise.all(
          bed.apis.map((api) =>
            api.operator.request("PUT", `/api/v1/admin/components/${component.id}`, { description: "back" })
          )
        )
        return answers.every((answer) => answer.status === 200)
      },
      30_000,
      250
    ).then(() => Date.now() - recoveredAt, () => null)

    // A change through one instance reaches the other's public snapshot (its LISTEN connection came back).
    const title = `Seen everywhere ${Date.now()}`
    const changedAt = Date.now()
    await first.operator.ok("POST", "/api/v1/admin/incidents", { title, message: "after the outage" })
    const changeSeen = await until(
      "the change on the other instance",
      async () => {
        const answer = await publicGet<Array<{ title: string }>>(second.baseUrl, "/api/v1/status/incidents")
        return answer.status === 200 && answer.body.some((incident) => incident.title === title)
      },
      30_000,
      100
    ).then(() => Date.now() - changedAt, () => null)
    const checksStoredAgainAfterDatabaseMs = await checksStoredAgain(databaseBack, 60_000)

    // The checks of the outage: due by the slot rule (client and clock), and seen by the target.
    const due = monitorIds.flatMap((id) =>
      slotsIn(id, intervalMs, cutAt, restoredAt).flatMap((slot) => regions.map((region) => runKey(id, slot, region)))
    )
    // Each request the target logged until the database returned, with the run it belongs to. The
    // results of the last checks before a terminated connection or the cut wait in Redis until
    // ingest can store them (the scheduler stops publishing as soon as its own connection goes).
    const requests = checkRequests(bed.targets.log, monitorOf).requests
    const withRedis = (at: number) => at >= redisKilledAt - 5_000 && at < redisBack.getTime()
    const judged = (at: number) => at >= monitorsCreatedAt && at < restoredAt && !withRedis(at)
    const recordedRuns = async () => {
      const { rows } = await bed.sql.query<StoredResult & { kind: "result" | "miss"; reason: string | null }>(
        `select 'result' as kind, monitor_id as "monitorId", region, probe,
                round(extract(epoch from scheduled_at) * 1000)::float8 as "scheduledAt",
                round(extract(epoch from checked_at) * 1000)::float8 as "checkedAt", null as reason
           from check_results where monitor_id = any($1) and scheduled_at >= $2
         union all
         select 'miss', monitor_id, region, probe, round(extract(epoch from scheduled_at) * 1000)::float8, null, reason
           from missed_checks where monitor_id = any($1) and scheduled_at >= $2`,
        [monitorIds, new Date(monitorsCreatedAt - 2 * intervalMs)]
      )
      const keys = (kind: string) =>
        new Set(
          rows.filter((row) => row.kind === kind).map((row) => runKey(row.monitorId, row.scheduledAt, row.region))
        )
      const results = keys("result")
      const byRun = [...requestsByRun(requests, rows.filter((row) => row.kind === "result"), intervalMs).runs]
        .flatMap(([key, runRequests]) => runRequests.map((request) => ({ key, request })))
      const reasons = new Map(
        rows.filter((row) => row.kind === "miss").map((row) => [
          runKey(row.monitorId, row.scheduledAt, row.region),
          row.reason ?? "none"
        ])
      )
      return {
        results,
        misses: keys("miss"),
        reasons,
        judged: byRun.filter(({ request }) => judged(request.at)),
        notStored: byRun.filter(({ key, request }) => judged(request.at) && !results.has(key)),
        lostWithRedis: byRun.filter(({ key, request }) => withRedis(request.at) && !results.has(key)).length
      }
    }
    const settleStart = Date.now()
    let recorded = await recordedRuns()
    await until(
      "the outage's runs stored",
      async () => {
        recorded = await recordedRuns()
        return recorded.notStored.length === 0 &&
          due.every((key) => recorded.results.has(key) || recorded.misses.has(key))
      },
      // The scheduler retries recording the runs it could not publish from 1 s, doubling up to
      // 30 s apart: after a 15 s outage the next try may come 16–30 s after the database returns.
      45_000,
      500
    ).catch((error) => log(`  ${String(error)}`))
    const outageRunsSettledAfterMs = Date.now() - settleStart
    const lostWhileAway = due.filter((key) => !recorded.results.has(key) && !recorded.misses.has(key))

    await sleep(2_000)
    reading = false
    await load
    if (failures.length > 0) log(`  failed reads: ${failures.join("; ")}`)
    const total = Object.values(byPhase).reduce((sum, counts) => sum + counts.total, 0)
    const failed = Object.values(byPhase).reduce((sum, counts) => sum + counts.failed, 0)
    return {
      publicReads: { total, failed, byPhase },
      redisDownMs,
      checksStoredAgainAfterRedisMs,
      connectionsTerminated,
      writesFailedAfterTermination,
      databaseAwayMs,
      writesWhileAway,
      readyzWhileAway,
      readyzBackAfterMs,
      runsDueWhileAway: {
        expected: due.length,
        stored: due.filter((key) => recorded.results.has(key)).length,
        missed: due.filter((key) => !recorded.results.has(key) && recorded.misses.has(key)).length,
        missedByReason: due.filter((key) => !recorded.results.has(key) && recorded.misses.has(key)).reduce(
          (counts, key) => {
            const reason = recorded.reasons.get(key)!
            counts[reason] = (counts[reason] ?? 0) + 1
            return counts
          },
          {} as Record<string, number>
        ),
        lost: lostWhileAway.length,
        both: due.filter((key) => recorded.results.has(key) && recorded.misses.has(key)).length,
        examples: [
          ...lostWhileAway.slice(0, 5).map((key) => `lost ${key}`),
          ...recorded.notStored.slice(0, 5).map(({ key, request }) =>
            `not stored: ${key} requested by ${request.probe} at ${new Date(request.at).toISOString()}${
              recorded.misses.has(key) ? ", recorded as missed" : ""
            }`
          )
        ]
      },
      checksStored: {
        requests: recorded.judged.length,
        notStored: recorded.notStored.length,
        lostWithRedis: recorded.lostWithRedis
      },
      outageRunsSettledAfterMs,
      writesRecoveredAfterMs: writesRecovered,
      changeSeenByOtherInstanceAfterMs: changeSeen,
      checksStoredAgainAfterDatabaseMs
    }
  } finally {
    reading = false
    await load
  }
}
