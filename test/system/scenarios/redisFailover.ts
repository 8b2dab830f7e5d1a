/**
 * Redis Sentinel failover under the checks workload, on a bed of its own: a fresh database, a
 * Sentinel group (a master, a replica and three sentinels, test/support/RedisSentinels.ts), one
 * service process (api, scheduler and ingest, on a `redis+sentinel://` REDIS_URL) and a probe in
 * each of `eu` and `us` (on REDIS_SENTINELS and REDIS_SENTINEL_NAME), each signed in as its ACL
 * user. 50 monitors every 10 s in both regions; 20 s into the window the master is SIGKILLed. No
 * process is restarted: they must find the promoted replica by themselves.
 *
 * Judged as the checks scenario judges (scenarios/checks.ts, Runs.ts), from the client, the clock
 * and the targets' own log: every run due by the slot rule in the window has one stored result
 * or one recorded miss; misses only in the failover window, from one interval before the kill
 * (a run published then may wait on the dead master) until checks were stored again in both
 * regions; checks run after the failover are stored again in each region, with the delay; every
 * stored result's check reached the target.
 */
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

import { Effect, Exit, Scope } from "effect"
import pg from "pg"

import { listeningUrl, projectRoot, runCommand, waitFor200 } from "../../support/ChildProcess.js"
import { startSentinelGroup } from "../../support/RedisSentinels.js"
import { freshDatabaseUrl } from "../../support/TestDatabase.js"
import { operator } from "../Client.js"
import { type ManagedProcess, managedProcess, sleep, until } from "../Processes.js"
import { checkRequests, runKey, slotsIn } from "../Runs.js"
import { startTargets } from "../Sinks.js"
import { fleetAclUsers, probeSourceAddress, regions } from "../TestBed.js"
import { settledRuns } from "./checks.js"

const monitorCount = 50
const intervalSeconds = 10
const intervalMs = intervalSeconds * 1000
const windowMs = 60_000
const killAfterMs = 20_000
const streamPrefix = "failover:"

export interface RedisFailoverReport {
  readonly monitors: number
  readonly windowMs: number
  /** From the kill until every sentinel named the replica as the master. */
  readonly failoverMs: number
  /**
   * Per region, from the kill until a result checked after the failover was stored: the
   * scheduler published on the new master, the probe read and reported there, ingest stored it.
   */
  readonly checksStoredAgainAfterKillMs: Record<string, number | null>
  /** The failover window, in ms from the kill: misses are allowed for runs due in it. */
  readonly failoverWindowMs: { readonly from: number; readonly to: number }
  readonly expected: number
  readonly stored: number
  readonly missed: number
  readonly missedOutsideWindow: number
  readonly lost: number
  readonly storedAndMissed: number
  readonly offSlot: number
  readonly targetRequests: number
  readonly storedWithoutRequest: number
  /** Runs whose check reached the target twice (a job sent again to the new master, say): allowed, counted. */
  readonly requestedTwice: number
  /** Processes of the bed that were not on their first start at the end, or had exited: 0 expected. */
  readonly processesRestartedOrDead: number
  readonly examples: ReadonlyArray<string>
  readonly settleMs: number
}

export const runRedisFailoverScenario = async (log: (line: string) => void): Promise<RedisFailoverReport> => {
  const scope = Effect.runSync(Scope.make())
  const started: Array<ManagedProcess> = []
  const closers: Array<() => Promise<void>> = []
  try {
    const database = await Effect.runPromise(Scope.provide(freshDatabaseUrl, scope))
    const sql = new pg.Client({ connectionString: database.url })
    await sql.connect()
    closers.push(() => sql.end())
    const { aclUsers, users } = fleetAclUsers(streamPrefix)
    const group = await startSentinelGroup({ aclUsers })
    closers.push(group.stop)
    const targets = await startTargets()
    closers.push(targets.close)

    const service = managedProcess("failover-service", "src/main.ts", {
      DATABASE_URL: database.url,
      REDIS_URL: group.url("service", users.service!.password),
      REDIS_STREAM_PREFIX: streamPrefix,
      ROLES: "api,scheduler,ingest",
      HOST: "127.0.0.1",
      PORT: "0",
      PUBLIC_URL: "https://status.failover.test",
      QUEUE_CLAIM_IDLE_MS: "2000"
    })
    started.push(service)
    service.start()
    const baseUrl = await listeningUrl(service, 120_000)
    await waitFor200(`${baseUrl}/readyz`, 120_000)
    const key = await runCommand("src/cli/main.ts", ["api-key", "create", "--name", "failover"], {
      DATABASE_URL: database.url
    })
    if (key.code !== 0) throw new Error(`creating the scenario's API key failed: ${key.stderr}`)
    const admin = operator(baseUrl, key.stdout.trim())
    // The probes by the pair of variables, the service by the URL: both forms in one run.
    const probes = regions.map((region) => {
      const probe = managedProcess(`failover-probe-${region}-1`, "probes/main.ts", {
        REDIS_SENTINELS: group.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(","),
        REDIS_SENTINEL_NAME: group.name,
        REDIS_USERNAME: `probe-${region}`,
        REDIS_PASSWORD: users[`probe-${region}`]!.password,
        REDIS_STREAM_PREFIX: streamPrefix,
        PROBE_REGION: region,
        PROBE_NAME: `${region}-1`,
        PROBE_DNS_SERVERS: "127.0.0.1:9",
        NODE_OPTIONS: `--import ${pathToFileURL(Path.join(projectRoot, "test/system/probeSourceAddress.mjs")).href}`,
        SYSTEM_PROBE_SOURCE_ADDRESS: probeSourceAddress(region, 1),
        SYSTEM_TARGET_PORT: String(targets.port)
      })
      started.push(probe)
      probe.start()
      return probe
    })
    await Promise.all([
      service.waitForOutput("Scheduler active", 120_000),
      ...probes.map((probe) => probe.waitForOutput("probe ready", 120_000))
    ])

    const component = await admin.ok<{ id: string }>("POST", "/api/v1/admin/components", { name: "Failover" })
    const monitorOf = new Map<number, string>()
    for (let n = 0; n < monitorCount; n++) {
      const monitor = await admin.ok<{ id: string }>("POST", "/api/v1/admin/monitors", {
        componentId: component.id,
        type: "http",
        url: targets.url(n),
        intervalSeconds,
        timeoutMs: 5_000,
        regions: [...regions]
      })
      monitorOf.set(n, monitor.id)
    }
    const monitorIds = [...monitorOf.values()]
    // As in the checks scenario: the window starts once the target has seen every monitor from both regions.
    await until(
      "every monitor checked from both regions",
      () =>
        new Set(checkRequests(targets.log, monitorOf).requests.map((r) => `${r.monitorId}@${r.region}`)).size ===
          monitorCount * regions.length,
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

    await sleep(killAfterMs)
    const masterPort = await group.masterPort()
    log(`  SIGKILL to the Redis master (port ${masterPort})`)
    const killedAt = await group.kill(masterPort)
    const failedOverAt = await group.failedOverFrom(masterPort, 60_000)
    log(`  the sentinels promoted port ${await group.masterPort()} after ${failedOverAt - killedAt} ms`)
    const storedAgain = await Promise.all(regions.map(async (region) => {
      const back = await until(
        `a check run in ${region} after the failover stored`,
        async () => {
          const { rows } = await sql.query<{ n: number }>(
            "select count(*)::int as n from check_results where region = $1 and checked_at > $2",
            [region, new Date(failedOverAt)]
          )
          return rows[0]!.n > 0
        },
        60_000,
        250
      ).then(() => Date.now() - killedAt, () => null)
      return [region, back] as const
    }))
    const checksStoredAgainAfterKillMs = Object.fromEntries(storedAgain)
    // The failover window ends once both regions store checks again; never, then at the promotion.
    const backAt = storedAgain.every(([, ms]) => ms !== null)
      ? killedAt + Math.max(...storedAgain.map(([, ms]) => ms!))
      : failedOverAt
    log(`  checks stored again ${storedAgain.map(([region, ms]) => `${region} after ${ms} ms`).join(", ")}`)
    await sleep(Math.max(0, windowEnd - Date.now()))

    const { lost, offSlot, repeated, requests, rows, settleMs, withoutRequest } = await settledRuns({
      sql,
      monitorIds,
      expected,
      windowStart,
      windowEnd,
      intervalMs,
      targetLog: targets.log,
      monitorOf,
      kills: [],
      log
    })
    const missedRows = rows.filter((row) => row.results === 0 && row.misses === 1)
    const windowFrom = killedAt - intervalMs
    const missedOutside = missedRows.filter((row) => row.scheduled_at < windowFrom || row.scheduled_at > backAt)
    const processesRestartedOrDead = started.filter((process) => process.starts() !== 1 || !process.alive()).length
    return {
      monitors: monitorCount,
      windowMs,
      failoverMs: failedOverAt - killedAt,
      checksStoredAgainAfterKillMs,
      failoverWindowMs: { from: windowFrom - killedAt, to: backAt - killedAt },
      expected: expected.size,
      stored: rows.filter((row) => row.results === 1 && row.misses === 0).length,
      missed: missedRows.length,
      missedOutsideWindow: missedOutside.length,
      lost: lost.length,
      storedAndMissed: rows.filter((row) => row.results > 0 && row.misses > 0).length,
      offSlot: offSlot.length,
      targetRequests: requests.filter((r) => r.at >= windowStart && r.at < windowEnd).length,
      storedWithoutRequest: withoutRequest.length,
      requestedTwice: repeated.length,
      processesRestartedOrDead,
      examples: [
        ...lost.slice(0, 5).map((key) => `lost ${key}`),
        ...offSlot.slice(0, 5).map((key) => `off slot ${key}`),
        ...missedOutside.slice(0, 5).map((row) =>
          `missed outside the window ${runKey(row.monitor_id, row.scheduled_at, row.region)} (${
            row.scheduled_at - killedAt
          } ms from the kill)`
        ),
        ...withoutRequest.slice(0, 5).map((key) => `stored without a request ${key}`)
      ],
      settleMs
    }
  } finally {
    await Promise.all(started.map((process) => process.stop(5_000)))
    for (const closer of closers.reverse()) await closer().catch(() => undefined)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
