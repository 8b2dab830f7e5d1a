/**
 * Benchmark (`npm run bench:fleet-e2e`): the whole fleet end to end, in separate processes as
 * deployed. For each BENCH_MONITORS count (default 10000; a list such as "1000,10000,30000"
 * runs each):
 *
 * - the service, one process with ROLES=scheduler,ingest, on the machine's PostgreSQL (a fresh
 *   database, dropped at the end) and Redis (a fresh REDIS_STREAM_PREFIX, deleted at the end),
 *   signed in to Redis as the service's ACL user (src/queue/ProbeAcl.ts). Started as the image
 *   starts it: `node --single-threaded-gc --max-semi-space-size=32 dist/server/main.mjs`, built
 *   first as `npm start` does (BENCH_SERVICE_ENTRY names another entry; a `.ts` one runs with
 *   `node --import tsx`). BENCH_SERVICE_NODE_OPTIONS replaces the flags (e.g. `--cpu-prof` to
 *   see where the service's time goes; "none" for none);
 * - two regions, each served by one probe, `node dist/probe.mjs` (built first, as
 *   `npm run build:probe` does), signed in as its region's ACL user, as in production;
 * - N components with one `http` monitor each, 60 s interval, no `regions` (so both regions
 *   check each), inserted by SQL once the service has migrated the database: the scheduler
 *   and ingest cannot tell, and 10,000 API calls would take minutes of the run;
 * - a bare `node:http` target in a process of its own (1 % of monitors answer 503).
 *
 * Warm-up: one interval after the monitors exist. Then BENCH_SECONDS (300) of steady state,
 * over which it prints: checks/s stored; p50 and p99 of `scheduled_at` → `stored_at`, computed
 * in SQL; runs missed (`missed_checks` rows, and scheduled slots of either region with neither
 * a result nor a miss) and late (stored more than 2 s, or more than an interval, after their
 * slot); CPU seconds per 1,000 checks of each process (the service, each probe, PostgreSQL:
 * every postgres process of the server, and the bench database's backends alone; Redis: the
 * redis-server listening on REDIS_URL's port) and of the whole machine; the maximum RSS of each
 * (PostgreSQL's is mostly shared memory and left out). Then the targets, met or not, and where
 * one is not, the process that used the most CPU. It never fails on a number.
 *
 * Environment: BENCH_MONITORS ("10000"), BENCH_SECONDS (300), BENCH_SERVICE_ENTRY (src/main.ts),
 * BENCH_PROBE_NODE_OPTIONS (the probes' NODE_OPTIONS; default none, probes/Dockerfile sets
 * `--max-semi-space-size=2`), PROBE_CONCURRENCY (the probes'; their default 32), REDIS_URL
 * (default redis://127.0.0.1:6379; its user must be allowed ACL SETUSER), TEST_DATABASE_URL.
 *
 * The service measured alone (issue 46's 100,000 monitors × 3 regions), each default keeping
 * the run above:
 * - BENCH_PROBES=simulated: each region served by test/bench/probeSimulator.ts instead of a
 *   probe (the same transport, ACL user, reads, results and acks; answers after 5–80 ms, 1 % of
 *   monitors failing; no HTTP, so no target process). The monitors' URLs are then
 *   `https://service-<n>.example.test/health`, never requested. The simulators also report how
 *   long after its slot each job was XADDed (the scheduler's lag) and read;
 * - BENCH_REGIONS (2): regions e2e-a, e2e-b, e2e-c, …;
 * - BENCH_INGEST_INSTANCES (0): 0 runs one process with ROLES=scheduler,ingest; N runs one
 *   process with ROLES=scheduler and N with ROLES=ingest, sharing each region's results through
 *   the consumer group; each is measured on its own line;
 * - BENCH_SIM_LATENCY_MS ("5,80"), BENCH_SIM_CONCURRENCY (2000): the simulators' latency range
 *   and answers in flight;
 * - BENCH_DRAIN_SECONDS (0): after the warm-up, wait at most this long until ingest has less than
 *   a second of results unread (creating 100,000 monitors at once is a transient of minutes).
 * Every run also prints Redis' memory (used_memory, the streams' lengths) at the end of the
 * window, what the bench database's backends were doing (pg_stat_activity every second: running,
 * waiting for a lock, for I/O), and when late runs fell (per 5 s of slots).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"

import { Effect, Exit, Scope } from "effect"
import { Redis } from "ioredis"
import pg from "pg"

import { buildProbe } from "../../scripts/buildProbe.js"
import { jobIdOf } from "../../src/domain/CheckJob.js"
import { slotAt } from "../../src/domain/Slots.js"
import { probeAclRules, serviceAclRules } from "../../src/queue/ProbeAcl.js"
import { projectRoot } from "../support/ChildProcess.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { type CheckTargets, startCheckTargets } from "./CheckTargets.js"
import {
  accumulateCpu,
  loadAverage,
  machineCpu,
  mb,
  pidListeningOn,
  postgresBackendsOf,
  postgresCpu,
  processCpu,
  rss,
  sampleMemory
} from "./ProcessStats.js"

const monitorCounts = (process.env.BENCH_MONITORS ?? "10000").split(",").map((n) => Number(n.trim()))
const seconds = Number(process.env.BENCH_SECONDS ?? 300)
const serviceEntry = process.env.BENCH_SERVICE_ENTRY ?? "dist/server/main.mjs"
/** The image's flags (Dockerfile, CMD) unless told otherwise. */
const serviceNodeOptions = (process.env.BENCH_SERVICE_NODE_OPTIONS ?? "--single-threaded-gc --max-semi-space-size=32")
  .split(" ")
  .filter((flag) => flag !== "" && flag !== "none")
const probeNodeOptions = process.env.BENCH_PROBE_NODE_OPTIONS ?? ""
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const simulated = process.env.BENCH_PROBES === "simulated"
const regions: ReadonlyArray<string> = Array.from(
  { length: Number(process.env.BENCH_REGIONS ?? 2) },
  (_, i) => `e2e-${String.fromCharCode(97 + i)}`
)
/** 0: one process runs scheduler and ingest (the run as before); N: a scheduler process and N ingest processes. */
const ingestInstances = Number(process.env.BENCH_INGEST_INSTANCES ?? 0)
const intervalSeconds = 60
const intervalMs = intervalSeconds * 1000
const targets = simulated
  ? { monitors: 100_000, p99Ms: 2000, serviceShareOfProbes: NaN }
  : { monitors: 10_000, p99Ms: 2000, serviceShareOfProbes: 0.25 }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const count = (n: number) => Math.round(n).toLocaleString("en-US")
const fixed = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "n/a"
const met = (ok: boolean) => ok ? "met" : "NOT met"

// ---- processes -----------------------------------------------------------------------------

interface Running {
  readonly name: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** Spawns a process with exactly this environment (plus PATH and HOME); SIGTERM, then SIGKILL after 30 s. */
const run = (name: string, command: string, args: ReadonlyArray<string>, env: Record<string, string>): Running => {
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    name,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGTERM")
      if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) {
        console.error(`${name} did not stop within 30 s of SIGTERM: killed`)
        child.kill("SIGKILL")
        await exited
      }
    }
  }
}

const waitForOutput = async (process: Running, text: string, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs
  while (!process.output().includes(text)) {
    if (process.child.exitCode !== null) throw new Error(`${process.name} exited:\n${process.output()}`)
    if (performance.now() > deadline) {
      throw new Error(`${process.name}: no "${text}" in ${timeoutMs} ms:\n${process.output()}`)
    }
    await sleep(100)
  }
}

/** The last warnings and errors of a process's text log (a level, then indented lines). */
const problems = (output: string) =>
  output.split(/\n(?=\S)/).filter((entry) => /\b(WARN|ERROR|FATAL)\b/.test(entry)).slice(-5).join("\n")

const redisWithUser = (user: string, password: string) => {
  const url = new URL(redisUrl)
  url.username = user
  url.password = password
  return url.toString()
}

// ---- Redis users and keys ------------------------------------------------------------------

/** An ACL user per region's probe and one for the service, as docs/operations.md sets them up; deleted afterwards. */
const aclUsers = async (admin: Redis, prefix: string) => {
  const id = randomBytes(4).toString("hex")
  const users: Array<string> = []
  const make = async (user: string, rules: ReadonlyArray<string>) => {
    const password = randomBytes(16).toString("hex")
    await admin.call("ACL", "SETUSER", user, "reset", "on", `>${password}`, ...rules)
    users.push(user)
    return redisWithUser(user, password)
  }
  const service = await make(`bench-e2e-${id}-service`, serviceAclRules(prefix))
  const probes = Object.fromEntries(
    await Promise.all(
      regions.map(async (region) =>
        [region, await make(`bench-e2e-${id}-${region}`, probeAclRules(prefix, region))] as const
      )
    )
  ) as Record<string, string>
  return {
    service,
    probes,
    remove: async () => {
      for (const user of users) await admin.call("ACL", "DELUSER", user)
    }
  }
}

const deleteKeys = async (redis: Redis, prefix: string) => {
  let cursor = "0"
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
    cursor = next
    if (keys.length > 0) await redis.del(...keys)
  } while (cursor !== "0")
}

/** Jobs and results read by no consumer yet, and read but not acknowledged: the backlog at the end. */
const backlog = async (redis: Redis, prefix: string) => {
  const of = async (stream: string, group: string) => {
    try {
      const groups = (await redis.xinfo("GROUPS", stream)) as Array<Array<string | number>>
      const info = groups.map((fields) => {
        const entry: Record<string, string | number> = {}
        for (let i = 0; i + 1 < fields.length; i += 2) entry[String(fields[i])] = fields[i + 1]!
        return entry
      }).find((entry) => entry.name === group)
      return `${info?.lag ?? "?"} unread, ${info?.pending ?? "?"} pending`
    } catch (error) {
      return `unknown (${error})`
    }
  }
  return Promise.all(
    regions.map(async (region) =>
      `${region}: jobs ${await of(`${prefix}jobs:${region}`, region)}; results ${await of(
        `${prefix}results:${region}`,
        "ingest"
      )}`
    )
  )
}

// ---- the run -------------------------------------------------------------------------------

/** N components with one http monitor each, as the API would store them (defaults of CreateMonitor). */
const insertMonitors = (db: pg.Client, monitors: number, urlPrefix: string, urlSuffix = "") =>
  db.query(
    `with c as (
       insert into components (name, display_order)
       select 'Service ' || i, i from generate_series(1, $1::int) as i
       returning id, display_order)
     insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                           expected_status_codes, method, failure_threshold)
     select c.id, 'http', $2 || 'm' || (c.display_order - 1) || $4, $3::int, 10000, 200, '["200"]', 'GET', 3 from c`,
    [monitors, urlPrefix, intervalSeconds, urlSuffix]
  )

interface Window {
  readonly from: number
  readonly to: number
}

/** Expected runs (slot × region) of the window that have neither a stored result nor a miss. */
const unaccounted = async (db: pg.Client, window: Window) => {
  const ids = (await db.query<{ id: string }>("select id from monitors")).rows.map((row) => row.id)
  const seen = new Set(
    (await db.query<{ key: string }>(
      `select job_id || '|' || region as key from check_results where scheduled_at >= $1 and scheduled_at < $2
       union all
       select job_id || '|' || region from missed_checks where scheduled_at >= $1 and scheduled_at < $2`,
      [new Date(window.from), new Date(window.to)]
    )).rows.map((row) => row.key)
  )
  let expected = 0
  let missing = 0
  for (const id of ids) {
    for (let slot = slotAt(id, intervalMs, window.from - 1) + intervalMs; slot < window.to; slot += intervalMs) {
      for (const region of regions) {
        expected++
        if (!seen.has(`${jobIdOf(id, slot)}|${region}`)) missing++
      }
    }
  }
  return { expected, missing }
}

/** Waits until `n` ingest consumers have joined the group `ingest` of every region's results stream. */
const waitForIngestConsumers = async (admin: Redis, prefix: string, n: number, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs
  const joined = async (region: string) => {
    try {
      return ((await admin.xinfo("CONSUMERS", `${prefix}results:${region}`, "ingest")) as Array<unknown>).length
    } catch {
      return 0
    }
  }
  for (;;) {
    const counts = await Promise.all(regions.map(joined))
    if (counts.every((c) => c >= n)) return
    if (performance.now() > deadline) throw new Error(`ingest consumers per region after ${timeoutMs} ms: ${counts}`)
    await sleep(500)
  }
}

/** Results not yet read by ingest, over every region's stream (the group's `lag`). */
const unreadResults = async (admin: Redis, prefix: string) => {
  let unread = 0
  for (const region of regions) {
    try {
      const groups = (await admin.xinfo("GROUPS", `${prefix}results:${region}`)) as Array<Array<string | number>>
      for (const fields of groups) {
        const at = fields.indexOf("lag")
        if (fields[fields.indexOf("name") + 1] === "ingest" && at >= 0) unread += Number(fields[at + 1])
      }
    } catch {
      // no stream yet
    }
  }
  return unread
}

/** Redis' own account of its memory, and each stream's length: what the streams hold at this rate. */
const redisMemory = async (admin: Redis, prefix: string) => {
  const info = await admin.info("memory")
  const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN)
  const lengths = await Promise.all(
    regions.flatMap((region) =>
      ["jobs", "results"].map(async (kind) =>
        `${kind}:${region} ${count(await admin.xlen(`${prefix}${kind}:${region}`))}`
      )
    )
  )
  return { used, lengths }
}

/**
 * What the backends of the bench database are doing, sampled every second from
 * pg_stat_activity until stopped: counts per state and wait event (`active` without a wait is
 * on a core or waiting for one; `Lock` waits are rows another transaction holds).
 */
const sampleWaits = (db: pg.Client, database: string) => {
  const seen = new Map<string, number>()
  let sampling = Promise.resolve()
  const sample = () => {
    sampling = db.query<{ what: string; n: number }>(
      `select coalesce(state, '?') || coalesce(' ' || wait_event_type || ':' || wait_event, '') as what,
              count(*)::int as n
       from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() group by 1`,
      [database]
    ).then(({ rows }) => {
      for (const { n, what } of rows) seen.set(what, (seen.get(what) ?? 0) + n)
    }, () => undefined)
  }
  const timer = setInterval(sample, 1000)
  return {
    stop: async () => {
      clearInterval(timer)
      await sampling
      return [...seen].toSorted((a, b) => b[1] - a[1]).slice(0, 8)
    }
  }
}

/** The simulators' figures since their last SIGUSR2 (test/bench/probeSimulator.ts). */
interface SimulatorStats {
  readonly region: string
  readonly seconds: number
  readonly jobs: number
  readonly results: number
  readonly missed: number
  readonly inFlight: number
  readonly scheduledToXadd: { readonly n: number; readonly p50: number; readonly p99: number; readonly max: number }
  readonly xaddToRead: { readonly n: number; readonly p50: number; readonly p99: number; readonly max: number }
}
const simulatorStats = async (simulators: ReadonlyArray<Running>) => {
  const marker = "probe-simulator stats "
  const before = simulators.map((s) => s.output().length)
  for (const s of simulators) s.child.kill("SIGUSR2")
  const deadline = performance.now() + 5000
  while (simulators.some((s, i) => !s.output().slice(before[i]).includes(marker)) && performance.now() < deadline) {
    await sleep(100)
  }
  return simulators.flatMap((s, i) => {
    const text = s.output().slice(before[i])
    const at = text.indexOf(marker)
    return at < 0 ? [] : [JSON.parse(text.slice(at + marker.length).split("\n")[0]!) as SimulatorStats]
  })
}

const measure = async (
  checkTargets: CheckTargets | undefined,
  bundle: string | undefined,
  admin: Redis,
  monitors: number
) => {
  const prefix = `bench:${randomUUID()}:`
  const scope = Effect.runSync(Scope.make())
  const processes: Array<Running> = []
  const users = await aclUsers(admin, prefix)
  let db: pg.Client | undefined
  try {
    const database = await Effect.runPromise(Scope.provide(freshDatabaseUrl, scope))
    console.log(`\n== ${count(monitors)} monitors at ${intervalSeconds} s, regions ${regions.join(", ")} ==`)
    const serviceArgs = [
      ...serviceNodeOptions,
      ...(serviceEntry.endsWith(".ts") ? ["--import", "tsx"] : []),
      serviceEntry
    ]
    const serviceEnv = (roles: string) => ({
      DATABASE_URL: database.url,
      REDIS_URL: users.service,
      REDIS_STREAM_PREFIX: prefix,
      ROLES: roles
    })
    const schedulerRoles = ingestInstances === 0 ? "scheduler,ingest" : "scheduler"
    const service = run(
      ingestInstances === 0 ? "service" : "scheduler",
      process.execPath,
      serviceArgs,
      serviceEnv(schedulerRoles)
    )
    processes.push(service)
    await waitForOutput(service, "Scheduler active", 180_000)
    console.log(`${service.name}: node ${serviceArgs.join(" ")} (pid ${service.child.pid}), ROLES=${schedulerRoles}`)
    // Started once the first process has migrated the database.
    const ingests = Array.from(
      { length: ingestInstances },
      (_, i) => run(`ingest ${i + 1}`, process.execPath, serviceArgs, serviceEnv("ingest"))
    )
    processes.push(...ingests)
    if (ingests.length > 0) {
      console.log(
        `ingest: ${ingests.length} process${ingests.length === 1 ? "" : "es"} with ROLES=ingest, pids ${
          ingests.map((p) => p.child.pid).join(", ")
        }`
      )
    }
    const services = [service, ...ingests]
    const probes = regions.map((region) => {
      const env = {
        REDIS_URL: users.probes[region]!,
        REDIS_STREAM_PREFIX: prefix,
        PROBE_REGION: region,
        PROBE_NAME: `${region}-1`
      }
      return simulated
        ? run(`simulator ${region}`, process.execPath, ["--import", "tsx", "test/bench/probeSimulator.ts"], {
          ...env,
          ...(process.env.BENCH_SIM_LATENCY_MS ? { SIM_LATENCY_MS: process.env.BENCH_SIM_LATENCY_MS } : {}),
          ...(process.env.BENCH_SIM_CONCURRENCY ? { SIM_CONCURRENCY: process.env.BENCH_SIM_CONCURRENCY } : {})
        })
        : run(`probe ${region}`, process.execPath, [bundle!], {
          ...env,
          NODE_OPTIONS: probeNodeOptions,
          ...(process.env.PROBE_CONCURRENCY ? { PROBE_CONCURRENCY: process.env.PROBE_CONCURRENCY } : {})
        })
    })
    processes.push(...probes)
    for (const probe of probes) await waitForOutput(probe, "probe ready", 60_000)
    console.log(
      simulated
        ? `probe simulators: node --import tsx test/bench/probeSimulator.ts, pids ${
          probes.map((p) => p.child.pid).join(", ")
        }, each signed in as its region's ACL user`
        : `probes: node ${bundle}${probeNodeOptions ? ` (NODE_OPTIONS=${probeNodeOptions})` : ""}, pids ${
          probes.map((p) => p.child.pid).join(", ")
        }, each signed in as its region's ACL user`
    )
    // The regions are known once their probes' first heartbeats made their results streams.
    await sleep(3000)
    if (ingests.length > 0) await waitForIngestConsumers(admin, prefix, ingests.length, 60_000)

    db = new pg.Client({ connectionString: database.url })
    await db.connect()
    const tag = `e2e-${monitors}`
    const inserting = performance.now()
    // Simulated probes request nothing: the URLs only give the jobs a real one's size.
    await insertMonitors(
      db,
      monitors,
      checkTargets?.prefix(tag) ?? "https://service-",
      checkTargets ? "" : ".example.test/health"
    )
    console.log(
      `inserted ${count(monitors)} components and monitors in ${fixed((performance.now() - inserting) / 1000, 1)} s`
    )

    // Warm-up: one interval after the monitors exist (the scheduler loads them within 5 s).
    await sleep(intervalMs + 5000)
    // Monitors created by thousands make a transient (each first result moves its monitor from
    // unknown to up, with its event and component): with BENCH_DRAIN_SECONDS the window waits,
    // that long at most, until ingest has less than a second of results unread.
    const drainMs = Number(process.env.BENCH_DRAIN_SECONDS ?? 0) * 1000
    if (drainMs > 0) {
      const draining = performance.now()
      const perSecond = (monitors * regions.length) / intervalSeconds
      let unread = await unreadResults(admin, prefix)
      while (unread > perSecond && performance.now() - draining < drainMs) {
        await sleep(2000)
        unread = await unreadResults(admin, prefix)
      }
      console.log(
        `drain: ${count(unread)} results unread after ${
          fixed((performance.now() - draining) / 1000, 0)
        } s more (at most ${drainMs / 1000} s; a second's worth is ${count(perSecond)})`
      )
    }
    const distinct = checkTargets
      ? (await checkTargets.counts(tag)).distinct
      : (await db.query<{ n: number }>("select count(distinct monitor_id)::int as n from check_results")).rows[0]!.n
    console.log(`warm-up: ${count(distinct)} of ${count(monitors)} monitors checked so far`)

    const redisPort = Number(new URL(redisUrl).port || 6379)
    const redisPid = pidListeningOn(redisPort)
    const named: Record<string, number | undefined> = {
      ...Object.fromEntries(services.map((s) => [s.name, s.child.pid])),
      ...Object.fromEntries(probes.map((probe) => [probe.name, probe.child.pid])),
      redis: redisPid
    }
    const cpuOf = () => ({
      processes: Object.fromEntries(
        Object.entries(named).map(([name, pid]) => [name, pid === undefined ? NaN : processCpu(pid)])
      ) as Record<string, number>,
      postgres: postgresCpu(),
      machine: machineCpu().busy
    })
    const memory = sampleMemory(
      Object.fromEntries(Object.entries(named).map(([name, pid]) => [name, () => (pid === undefined ? 0 : rss(pid))]))
    )
    const backends = accumulateCpu(postgresBackendsOf(database.name))
    const waits = sampleWaits(db, database.name)
    if (simulated) await simulatorStats(probes)
    const before = cpuOf()
    const window = { from: Date.now(), to: 0 }
    const started = performance.now()
    await sleep(seconds * 1000)
    const after = cpuOf()
    window.to = Date.now()
    const elapsed = (performance.now() - started) / 1000
    const { max } = memory.stop()
    const ofDatabase = backends.stop()
    const waited = await waits.stop()
    const load = loadAverage()
    const simulatorFigures = simulated ? await simulatorStats(probes) : []
    const redisMemoryAtEnd = await redisMemory(admin, prefix)
    const queued = await backlog(admin, prefix)

    // The window's last runs: each is stored or recorded as missed within its time-out and a batch.
    const grace = performance.now() + 30_000
    let accounted = await unaccounted(db, window)
    while (accounted.missing > 0 && performance.now() < grace) {
      await sleep(2000)
      accounted = await unaccounted(db, window)
    }

    const range = [new Date(window.from), new Date(window.to)]
    const stored = (await db.query<{ region: string; n: number }>(
      `select region, count(*)::int as n from check_results
       where scheduled_at >= $1 and scheduled_at < $2 group by region order by region`,
      range
    )).rows
    const missed = (await db.query<{ n: number }>(
      "select count(*)::int as n from missed_checks where scheduled_at >= $1 and scheduled_at < $2",
      range
    )).rows[0]!.n
    const latency = (await db.query<{ p50: number; p99: number; max: number; over2s: number; overInterval: number }>(
      `select percentile_cont(0.5) within group (order by ms) as p50,
              percentile_cont(0.99) within group (order by ms) as p99,
              max(ms)::float8 as max,
              (count(*) filter (where ms > 2000))::int as "over2s",
              (count(*) filter (where ms > $3))::int as "overInterval"
       from (select extract(epoch from stored_at - scheduled_at) * 1000 as ms from check_results
             where scheduled_at >= $1 and scheduled_at < $2) as runs`,
      [...range, intervalMs]
    )).rows[0]!
    const failed = (await db.query<{ n: number }>(
      "select count(*)::int as n from check_results where scheduled_at >= $1 and scheduled_at < $2 and not ok",
      range
    )).rows[0]!.n

    const checks = stored.reduce((sum, row) => sum + row.n, 0)
    const ofRegion = (region: string) => stored.find((row) => row.region === region)?.n ?? 0
    const cpu = (name: string) => after.processes[name]! - before.processes[name]!
    const per1000 = (seconds: number, n: number) => (seconds / n) * 1000
    const postgres = { all: after.postgres - before.postgres, ofDatabase }

    console.log(
      `\nsteady state ${fixed(elapsed, 0)} s (load average at the end ${load}): ${count(checks)} checks stored, ${
        fixed(checks / elapsed, 1)
      }/s (${regions.map((r) => `${r} ${count(ofRegion(r))}`).join(", ")}; ${
        count(failed)
      } failed, as the 1 % of targets answer 503); expected ${
        fixed((monitors * regions.length) / intervalSeconds, 1)
      }/s`
    )
    console.log(
      `scheduled -> stored: p50 ${fixed(latency.p50, 0)} ms, p99 ${fixed(latency.p99, 0)} ms, max ${
        fixed(latency.max, 0)
      } ms`
    )
    console.log(
      `runs of the window: ${count(accounted.expected)} expected; missed: ${count(missed)} recorded (missed_checks), ${
        count(accounted.missing)
      } with neither a result nor a miss; late: ${count(latency.over2s)} stored more than 2 s after their slot, ${
        count(latency.overInterval)
      } more than an interval`
    )
    console.log(`streams at the end of the window: ${queued.join("; ")}`)
    console.log(
      `the bench database's backends, sampled every second (backends × samples): ${
        waited.map(([what, n]) => `${what} ${n}`).join(", ")
      }`
    )
    if (latency.over2s > 0) {
      // When the late runs fell: spread out (a slow process), or in bursts (a pause, a lock, the minute's work).
      const late = (await db.query<{ at: number; late: number; runs: number }>(
        `select (floor(extract(epoch from scheduled_at) / 5) * 5)::float8 as at,
                (count(*) filter (where stored_at - scheduled_at > interval '2 seconds'))::int as late,
                count(*)::int as runs
         from check_results where scheduled_at >= $1 and scheduled_at < $2 group by 1 order by 1`,
        range
      )).rows
      console.log(
        `late runs per 5 s of slots (s into the window: late/runs): ${
          late.filter((row) => row.late > 0).map((row) =>
            `${Math.round(row.at - window.from / 1000)}: ${row.late}/${row.runs}`
          ).join(", ")
        }`
      )
    }
    console.log(
      `Redis at the end of the window: used_memory ${mb(redisMemoryAtEnd.used)}; stream lengths ${
        redisMemoryAtEnd.lengths.join(", ")
      }`
    )
    for (const figures of simulatorFigures) {
      console.log(
        `simulator ${figures.region}: ${count(figures.jobs)} jobs in ${fixed(figures.seconds, 0)} s (${
          fixed(figures.jobs / figures.seconds, 1)
        }/s), ${
          count(figures.missed)
        } answered as missed; slot -> XADD p50 ${figures.scheduledToXadd.p50} ms, p99 ${figures.scheduledToXadd.p99} ms, max ${figures.scheduledToXadd.max} ms; XADD -> read p50 ${figures.xaddToRead.p50} ms, p99 ${figures.xaddToRead.p99} ms, max ${figures.xaddToRead.max} ms`
      )
    }

    const serviceCpu = services.reduce((sum, s) => sum + cpu(s.name), 0)
    const rows: Array<{ name: string; cpu: number; checks: number; rss?: number }> = [
      ...(ingests.length === 0
        ? [{ name: "service (scheduler, ingest)", cpu: cpu("service"), checks, rss: max.service! }]
        : [
          ...services.map((s) => ({
            name: s === service ? "scheduler (ROLES=scheduler)" : `${s.name} (ROLES=ingest)`,
            cpu: cpu(s.name),
            checks,
            rss: max[s.name]!
          })),
          { name: "  the service, all its processes", cpu: serviceCpu, checks }
        ]),
      ...probes.map((probe, i) => ({
        name: probe.name,
        cpu: cpu(probe.name),
        checks: ofRegion(regions[i]!),
        rss: max[probe.name]!
      })),
      { name: "PostgreSQL (all postgres processes)", cpu: postgres.all, checks },
      { name: "  PostgreSQL: the bench database's backends alone", cpu: postgres.ofDatabase, checks },
      { name: `Redis (redis-server, pid ${redisPid ?? "not found"})`, cpu: cpu("redis"), checks, rss: max.redis! },
      { name: "whole machine (/proc/stat)", cpu: after.machine - before.machine, checks }
    ]
    console.log("\n| process | CPU s | CPU s / 1,000 checks (its checks) | RSS max |")
    console.log("|---|---|---|---|")
    for (const row of rows) {
      console.log(
        `| ${row.name} | ${fixed(row.cpu, 1)} | ${fixed(per1000(row.cpu, row.checks), 3)} (${count(row.checks)}) | ${
          row.rss === undefined ? "" : mb(row.rss)
        } |`
      )
    }

    const probesCpu = probes.reduce((sum, probe) => sum + cpu(probe.name), 0)
    const serviceShare = serviceCpu / probesCpu
    const missedRuns = missed + accounted.missing
    const expectedRate = (monitors * regions.length) / intervalSeconds
    // Stored in the window against the runs it held: short of it, the service fell behind.
    const keptUp = accounted.expected > 0 && checks >= accounted.expected * 0.999
    console.log(`\ntargets (judged at ${count(monitors)} monitors; the target is ${count(targets.monitors)}):`)
    console.log(`- 0 missed runs: ${count(missedRuns)}: ${met(missedRuns === 0)}`)
    console.log(
      `- p99 scheduled -> stored <= ${targets.p99Ms} ms: ${fixed(latency.p99, 0)} ms: ${
        met(latency.p99 <= targets.p99Ms)
      }`
    )
    if (simulated) {
      console.log(
        `- every run of the window stored, ${fixed(expectedRate, 0)} results/s: ${count(checks)} of ${
          count(accounted.expected)
        }, ${fixed(checks / elapsed, 1)}/s: ${met(keptUp)}`
      )
      console.log(
        `  (measured, no target) the service's CPU: ${fixed(per1000(serviceCpu, checks), 3)} s / 1,000 checks, ${
          fixed(serviceCpu / elapsed)
        } cores; PostgreSQL's bench backends: ${fixed(per1000(postgres.ofDatabase, checks), 3)}, ${
          fixed(postgres.ofDatabase / elapsed)
        } cores; the simulators (not the service): ${fixed(per1000(probesCpu, checks), 3)}, ${
          fixed(probesCpu / elapsed)
        } cores; whole machine ${fixed((after.machine - before.machine) / elapsed)} cores`
      )
    } else {
      console.log(
        `- the service's CPU per check <= ${targets.serviceShareOfProbes} of the probes': ${
          fixed(per1000(serviceCpu, checks), 3)
        } against ${fixed(per1000(probesCpu, checks), 3)} s / 1,000 checks, ${fixed(serviceShare)} of it: ${
          met(serviceShare <= targets.serviceShareOfProbes)
        }`
      )
    }
    const shareMissed = !simulated && !(serviceShare <= targets.serviceShareOfProbes)
    if (missedRuns > 0 || !(latency.p99 <= targets.p99Ms) || shareMissed || (simulated && !keptUp)) {
      // PostgreSQL ranked by the bench database's backends: the server's other processes also serve other work here.
      const busiest = rows.filter((row) =>
        !row.name.startsWith("PostgreSQL") && !row.name.startsWith("whole") && !row.name.includes("all its processes")
      )
        .toSorted((a, b) => b.cpu - a.cpu)[0]!
      console.log(
        `  the process that used the most CPU: ${busiest.name.trim()}, ${fixed(busiest.cpu, 1)} s in ${
          fixed(elapsed, 0)
        } s (PostgreSQL counted by the bench database's backends; all postgres processes: ${fixed(postgres.all, 1)} s)`
      )
      for (const p of processes) {
        const text = problems(p.output())
        if (text !== "") console.log(`  last warnings of ${p.name}:\n${text}`)
      }
    }
    if (monitors < targets.monitors) console.log("  (fewer monitors than the target's: a validation run)")
  } finally {
    await db?.end()
    for (const p of processes.toReversed()) await p.stop()
    await deleteKeys(admin, prefix)
    await users.remove()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const main = async () => {
  if (process.env.BENCH_SERVICE_ENTRY === undefined) {
    execFileSync(process.execPath, ["--import", "tsx", "scripts/buildServer.ts"], {
      cwd: projectRoot,
      stdio: "inherit"
    })
  }
  // Simulated probes need neither the probe's bundle nor targets to check.
  const built = performance.now()
  const bundle = simulated ? undefined : await buildProbe()
  if (bundle) console.log(`probe bundle ${bundle.outfile} built in ${fixed((performance.now() - built) / 1000, 1)} s`)
  const admin = new Redis(redisUrl)
  const checkTargets = simulated ? undefined : await startCheckTargets()
  try {
    for (const monitors of monitorCounts) await measure(checkTargets, bundle?.outfile, admin, monitors)
  } finally {
    checkTargets?.stop()
    await admin.quit()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
