/**
 * Dependencies failing under read load. Redis is stopped for 30 s; PostgreSQL connections are
 * killed (`pg_terminate_backend`) and then the database is taken away altogether (the proxy in
 * front of it refuses connections). Public reads must keep answering from the snapshot, writes
 * answer 503 with an error body while the database is away, and every process recovers by
 * itself: writes succeed, changes reach the other instance, checks are stored again.
 */
import { publicGet } from "../Client.js"
import { sleep, until } from "../Processes.js"
import type { TestBed } from "../TestBed.js"

const redisDownMs = 30_000
const databaseAwayMs = 15_000
const readers = 16
const publicPaths = ["/api/v1/status", "/api/v1/status/components", "/api/v1/status/incidents", "/"]

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
  // At least one monitor, so the fleet has something to recover (the checks scenario may have made 500).
  const component = await first.operator.ok<{ id: string }>("POST", "/api/v1/admin/components", {
    name: "Dependencies"
  })
  await first.operator.ok("POST", "/api/v1/admin/monitors", {
    componentId: component.id,
    type: "http",
    url: bed.targets.url(9999),
    intervalSeconds: 10
  })

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
    phase = "database-back"
    log("  database back")

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
      writesRecoveredAfterMs: writesRecovered,
      changeSeenByOtherInstanceAfterMs: changeSeen,
      checksStoredAgainAfterDatabaseMs
    }
  } finally {
    reading = false
    await load
  }
}
