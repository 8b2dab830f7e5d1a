/**
 * Benchmark (`npm run bench:probe`): what one probe costs to run, and how fast it checks.
 *
 * 1. Builds the bundle (`dist/probe.mjs`, scripts/buildProbe.ts) and prints its size and what is in it.
 * 2. Starts `node dist/probe.mjs` against Redis, BENCH_STARTS times: from spawning the process to
 *    the first result on its region's results stream (jobs are published every 20 ms from the
 *    spawn on, since a probe's group starts at the end of the stream when it joins).
 * 3. The last of those probes then idles (BENCH_IDLE_SECONDS), then runs 30 http checks a second
 *    for BENCH_LOAD_SECONDS: its resident memory (VmRSS from /proc) sampled every 500 ms.
 * 4. The same for the old way, `npm run probe` (npm -> tsx -> node): the memory of the whole
 *    process tree.
 * 5. Throughput: BENCH_CHECKS http checks on a fresh connection each, through the bundled probe,
 *    side by side with a bare `node:http` loop of the same requests (`agent: false`, same
 *    concurrency), and their ratio; and the CPU time each took per check, which the machine's
 *    other work moves less than it moves requests/s.
 *
 * It measures and prints, with the ratio of each figure to its target; it never fails on a
 * number. Targets: RSS idle <= 80 MB, <= 120 MB at 30 checks/s, start to first job <= 1 s,
 * >= 1,000 checks/s.
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), BENCH_NODE (the node binary that runs
 * the bundle; default this one), BENCH_NODE_OPTIONS (its NODE_OPTIONS; default none), BENCH_NODE_ARGS
 * (node's arguments before the bundle, space-separated, for V8 flags NODE_OPTIONS refuses, such as
 * --optimize-for-size; default none), BENCH_STARTS (3), BENCH_IDLE_SECONDS (5), BENCH_LOAD_SECONDS
 * (20), BENCH_CHECKS (10000), PROBE_CONCURRENCY (64, throughput only).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as http from "node:http"
import { gzipSync } from "node:zlib"

import { Schema } from "effect"
import { Redis } from "ioredis"

import { buildProbe, bytesByPackage } from "../../scripts/buildProbe.js"
import { CheckJob } from "../../src/domain/CheckJob.js"
import { projectRoot } from "../support/ChildProcess.js"

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const nodeBinary = process.env.BENCH_NODE ?? process.execPath
/** NODE_OPTIONS of the bundled probe only (e.g. what probes/Dockerfile sets); `npm run probe` runs without. */
const bundleNodeOptions = process.env.BENCH_NODE_OPTIONS ?? ""
const bundleNodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)
const starts = Number(process.env.BENCH_STARTS ?? 3)
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 5)
const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 20)
const checks = Number(process.env.BENCH_CHECKS ?? 10_000)
const concurrency = Number(process.env.PROBE_CONCURRENCY ?? 64)
const loadRate = 30
const region = "bench"
const encodeJob = Schema.encodeSync(Schema.fromJsonString(CheckJob))

const MB = 1024 * 1024
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const judged = (value: number, target: number, unit: (n: number) => string) =>
  `${unit(value)} (target <= ${unit(target)}: ${(value / target).toFixed(2)} of it, ${
    value <= target ? "met" : "NOT met"
  })`

// ---- /proc ---------------------------------------------------------------------------------

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), 0 once the process is gone. */
const procStatus = (pid: number, field: string) => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match ? Number(match[1]) * 1024 : 0
  } catch {
    return 0
  }
}

const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat. */
const procCpuMs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // The fields after the command name (in parentheses, which may hold spaces): utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
}

const childrenOf = (pid: number): Array<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
    )
  } catch {
    return []
  }
}

/** The process and all its descendants: npm -> sh -> tsx -> node for `npm run probe`. */
const processTree = (pid: number): Array<number> => [pid, ...childrenOf(pid).flatMap(processTree)]
const treeRss = (pid: number) => processTree(pid).reduce((sum, p) => sum + procStatus(p, "VmRSS"), 0)

// ---- targets and probes ------------------------------------------------------------------------

/** The target runs in a process of its own, so the contenders meet the same server. */
const startTarget = () =>
  new Promise<{ port: number; stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, [
      "-e",
      `
      const server = require("node:http").createServer((q, s) => s.end("ok"))
      server.listen(0, "127.0.0.1", () => console.log(server.address().port))`
    ], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.once("data", (chunk) =>
      resolve({ port: Number(String(chunk).trim()), stop: () => child.kill("SIGTERM") }))
    child.once("error", reject)
  })

interface Probe {
  readonly child: ChildProcess
  readonly spawnedAt: number
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/**
 * Spawns a probe in a process group of its own (so stopping `npm run probe` reaches tsx and node
 * below it), on a stream prefix of its own.
 */
const startProbe = (command: string, args: ReadonlyArray<string>, prefix: string, env: Record<string, string> = {}) => {
  const spawnedAt = performance.now()
  const child = spawn(command, args, {
    cwd: projectRoot,
    detached: true,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      REDIS_URL: redisUrl,
      REDIS_STREAM_PREFIX: prefix,
      PROBE_REGION: region,
      PROBE_NAME: "bench-1",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM")
    await Promise.race([exited, sleep(10_000)])
  }
  return { child, spawnedAt, output: () => output, stop } satisfies Probe
}

const parse = (json: string): { readonly jobId?: unknown; readonly ok?: unknown } | undefined => {
  try {
    return JSON.parse(json)
  } catch {
    return undefined
  }
}

/** Reads the region's results stream from the start: the job ids seen, and when each arrived. */
const resultReader = (prefix: string) => {
  const redis = new Redis(redisUrl)
  const arrived = new Map<string, { at: number; ok: boolean }>()
  let lastId = "0"
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const entries = await redis.xread("COUNT", 1000, "BLOCK", 100, "STREAMS", `${prefix}results:${region}`, lastId)
      const at = performance.now()
      for (const [id, fields] of entries?.[0]?.[1] ?? []) {
        lastId = id
        // Results and misses carry a jobId; anything else on the stream (heartbeats) is passed over.
        for (let i = 0; i + 1 < fields.length; i += 2) {
          const value = parse(fields[i + 1]!)
          if (typeof value?.jobId === "string") arrived.set(value.jobId, { at, ok: value.ok === true })
        }
      }
    }
  })()
  return {
    arrived,
    stop: async () => {
      stopped = true
      await loop
      await redis.quit()
    }
  }
}

const jobFor = (url: string, monitorId: string, scheduledAt: number) =>
  CheckJob.forRun(
    { monitorId, type: "http", url, timeoutMs: 10_000, expectedStatusCode: 200, intervalSeconds: 3600 },
    scheduledAt
  )

const publish = (redis: Redis, prefix: string, jobs: ReadonlyArray<CheckJob>) => {
  const pipeline = redis.pipeline()
  for (const job of jobs) pipeline.xadd(`${prefix}jobs:${region}`, "*", "job", encodeJob(job))
  return pipeline.exec()
}

/** Publishes a job every 20 ms from the spawn on until a result comes back: ms from spawn to it. */
const firstJob = async (redis: Redis, probe: Probe, prefix: string, url: string) => {
  const reader = resultReader(prefix)
  try {
    for (let n = 0; reader.arrived.size === 0; n++) {
      if (probe.child.exitCode !== null) throw new Error(`probe exited:\n${probe.output()}`)
      if (performance.now() - probe.spawnedAt > 60_000) throw new Error(`no result in 60 s:\n${probe.output()}`)
      await publish(redis, prefix, [jobFor(url, `start${n}`, Date.now())])
      await sleep(20)
    }
    return Math.min(...[...reader.arrived.values()].map(({ at }) => at)) - probe.spawnedAt
  } finally {
    await reader.stop()
  }
}

/** Samples the memory of the probe's process tree every 500 ms for `seconds`, while `during` runs. */
const sampleRss = async (pid: number, seconds: number, during: Promise<unknown> = Promise.resolve()) => {
  const samples: Array<number> = []
  const until = performance.now() + seconds * 1000
  while (performance.now() < until) {
    samples.push(treeRss(pid))
    await sleep(500)
  }
  await during
  samples.push(treeRss(pid))
  return { last: samples[samples.length - 1]!, max: Math.max(...samples) }
}

/** Publishes 30 jobs a second for `loadSeconds` and waits for their results: memory meanwhile. */
const atLoad = async (redis: Redis, probe: Probe, prefix: string, url: string) => {
  const reader = resultReader(prefix)
  const publishedAt = new Map<string, number>()
  const ticks = loadSeconds * 10
  const load = (async () => {
    const started = performance.now()
    for (let tick = 0; tick < ticks; tick++) {
      const jobs = Array.from({ length: loadRate / 10 }, (_, i) => jobFor(url, `load${tick}-${i}`, Date.now()))
      for (const job of jobs) publishedAt.set(job.id, performance.now())
      await publish(redis, prefix, jobs)
      await sleep(Math.max(0, started + (tick + 1) * 100 - performance.now()))
    }
    const deadline = performance.now() + 10_000
    while ([...publishedAt.keys()].some((id) => !reader.arrived.has(id)) && performance.now() < deadline) {
      await sleep(50)
    }
  })()
  const rss = await sampleRss(probe.child.pid!, loadSeconds, load)
  await reader.stop()
  const latencies = [...publishedAt].flatMap(([id, at]) => {
    const result = reader.arrived.get(id)
    return result ? [result.at - at] : []
  }).sort((a, b) => a - b)
  const failed = [...publishedAt.keys()].filter((id) => reader.arrived.get(id)?.ok !== true).length
  return {
    rss,
    published: publishedAt.size,
    answered: latencies.length,
    failed,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? NaN,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN
  }
}

/** Start times, then idle and loaded memory, of one way of running a probe. */
const footprint = async (
  name: string,
  redis: Redis,
  url: string,
  start: (prefix: string) => Probe,
  runs: number
) => {
  const startMs: Array<number> = []
  for (let run = 1; run <= runs; run++) {
    const prefix = `bench:${randomUUID()}:`
    const probe = start(prefix)
    try {
      startMs.push(await firstJob(redis, probe, prefix, url))
      if (run < runs) continue
      const idle = await sampleRss(probe.child.pid!, idleSeconds)
      const loaded = await atLoad(redis, probe, prefix, url)
      const processes = processTree(probe.child.pid!).length
      return { name, startMs, idle, loaded, processes, hwm: procStatus(probe.child.pid!, "VmHWM") }
    } finally {
      await probe.stop()
      await deleteKeys(redis, prefix)
    }
  }
  throw new Error("BENCH_STARTS must be >= 1")
}

const deleteKeys = async (redis: Redis, prefix: string) => {
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length > 0) await redis.del(...keys)
}

// ---- throughput ----------------------------------------------------------------------------

const bareLoop = async (url: string) => {
  let next = 0
  let failures = 0
  const worker = async () => {
    while (next < checks) {
      next++
      await new Promise<void>((resolve) => {
        const request = http.get(url, { agent: false, headers: { connection: "close" } }, (response) => {
          if (response.statusCode !== 200) failures++
          response.resume()
          response.once("end", resolve)
        })
        request.once("error", () => (failures++, resolve()))
      })
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { seconds: (performance.now() - started) / 1000, failures }
}

const probeRun = async (redis: Redis, prefix: string, url: string) => {
  const scheduledAt = Date.now()
  const jobs = Array.from({ length: checks }, (_, i) => jobFor(url, `bench${i}`, scheduledAt))
  const reader = resultReader(prefix)
  const started = performance.now()
  for (let i = 0; i < jobs.length; i += 1000) await publish(redis, prefix, jobs.slice(i, i + 1000))
  const deadline = performance.now() + 120_000
  while (jobs.some((job) => !reader.arrived.has(job.id)) && performance.now() < deadline) await sleep(20)
  const seconds = (performance.now() - started) / 1000
  await reader.stop()
  return { seconds, failures: jobs.filter((job) => reader.arrived.get(job.id)?.ok !== true).length }
}

const throughput = async (redis: Redis, bundle: string, url: string) => {
  const prefix = `bench:${randomUUID()}:`
  const probe = startProbe(nodeBinary, [...bundleNodeArgs, bundle], prefix, {
    PROBE_CONCURRENCY: String(concurrency),
    NODE_OPTIONS: bundleNodeOptions
  })
  try {
    await firstJob(redis, probe, prefix, url)
    // CPU per check tells what a check costs whatever else the machine runs; requests/s do not.
    const bareCpu = process.cpuUsage()
    const bare = await bareLoop(url)
    const bareCpuMs = (({ system, user }) => (user + system) / 1000)(process.cpuUsage(bareCpu))
    const probeCpuMs = procCpuMs(probe.child.pid!)
    const probed = await probeRun(redis, prefix, url)
    return {
      bare: { ...bare, cpuMs: bareCpuMs },
      probed: { ...probed, cpuMs: procCpuMs(probe.child.pid!) - probeCpuMs },
      hwm: procStatus(probe.child.pid!, "VmHWM")
    }
  } finally {
    await probe.stop()
    await deleteKeys(redis, prefix)
  }
}

// ---- report --------------------------------------------------------------------------------

const main = async () => {
  const redis = new Redis(redisUrl)
  const target = await startTarget()
  const url = `http://127.0.0.1:${target.port}/health`
  try {
    const buildStarted = performance.now()
    const bundle = await buildProbe()
    const source = readFileSync(bundle.outfile)
    console.log(
      `bundle ${bundle.outfile}: ${mb(bundle.bytes)} (gzip ${mb(gzipSync(source).length)}), built in ${
        ((performance.now() - buildStarted) / 1000).toFixed(1)
      } s; largest parts:`
    )
    for (const [name, bytes] of bytesByPackage(bundle.metafile).slice(0, 6)) {
      console.log(`  ${(bytes / 1024).toFixed(0).padStart(5)} kB  ${name}`)
    }
    const version = await new Promise<string>((resolve) => {
      const child = spawn(nodeBinary, ["--version"])
      let out = ""
      child.stdout.on("data", (chunk) => (out += chunk))
      child.once("exit", () => resolve(out.trim()))
    })
    console.log(`node ${version} (${nodeBinary}): binary ${mb(statSync(nodeBinary).size)}`)
    console.log(
      `image estimate: node binary + bundle = ${mb(statSync(nodeBinary).size + bundle.bytes)} before the base`
    )

    const ways = [
      await footprint(
        `node ${bundleNodeArgs.map((arg) => `${arg} `).join("")}dist/probe.mjs (${version}${
          bundleNodeOptions ? `, NODE_OPTIONS=${bundleNodeOptions}` : ""
        })`,
        redis,
        url,
        (prefix) =>
          startProbe(nodeBinary, [...bundleNodeArgs, bundle.outfile], prefix, { NODE_OPTIONS: bundleNodeOptions }),
        starts
      ),
      await footprint(
        "npm run probe (npm -> tsx -> node)",
        redis,
        url,
        (prefix) => startProbe("npm", ["run", "--silent", "probe"], prefix),
        Math.min(starts, 2)
      )
    ]
    for (const way of ways) {
      console.log(`\n${way.name}: ${way.processes} process(es)`)
      console.log(
        `  start to first job: ${way.startMs.map((ms) => ms.toFixed(0)).join(", ")} ms; median ${
          judged(median(way.startMs) / 1000, 1, (s) => `${s.toFixed(2)} s`)
        }`
      )
      // Over minutes an idle probe's RSS rises and falls as V8's old generation fills between collections.
      console.log(
        `  RSS idle (${idleSeconds} s after the first job): ${judged(way.idle.last, 80 * MB, mb)}; max ${
          mb(way.idle.max)
        } over those ${idleSeconds} s`
      )
      console.log(
        `  RSS at ${loadRate} checks/s (${way.loaded.answered}/${way.loaded.published} answered, ${way.loaded.failed} not ok, p50 ${
          way.loaded.p50.toFixed(0)
        } ms, p99 ${way.loaded.p99.toFixed(0)} ms): max ${judged(way.loaded.rss.max, 120 * MB, mb)}; at the end ${
          mb(way.loaded.rss.last)
        }; peak of the main process (VmHWM) ${mb(way.hwm)}`
      )
    }
    const [bundled, old] = ways
    console.log(
      `\nbundled / npm run probe: RSS idle ${(bundled!.idle.last / old!.idle.last).toFixed(2)}, at load ${
        (bundled!.loaded.rss.max / old!.loaded.rss.max).toFixed(2)
      }, start ${(median(bundled!.startMs) / median(old!.startMs)).toFixed(2)}`
    )

    const { bare, hwm, probed } = await throughput(redis, bundle.outfile, url)
    const bareRate = checks / bare.seconds
    const probeRate = checks / probed.seconds
    console.log(`\n${checks} http checks, fresh connection each, concurrency ${concurrency}, target ${url}`)
    console.log(
      `bare loop (node:http, agent: false): ${bareRate.toFixed(0)} requests/s (${
        bare.seconds.toFixed(2)
      } s, ${bare.failures} failed)`
    )
    console.log(
      `bundled probe (Redis jobs -> check -> result + ack): ${probeRate.toFixed(0)} checks/s (${
        probed.seconds.toFixed(2)
      } s, ${probed.failures} failed), peak RSS ${mb(hwm)}`
    )
    console.log(
      `ratio probe / bare: ${(probeRate / bareRate).toFixed(2)}; target >= 1000 checks/s: ${
        probeRate >= 1000 ? "met" : "NOT met"
      }`
    )
    const perCheck = (ms: number) => `${((ms * 1000) / checks).toFixed(0)} µs`
    console.log(
      `CPU per check: probe ${perCheck(probed.cpuMs)} (Redis included), bare loop ${perCheck(bare.cpuMs)}; ${
        (1_000_000 / ((probed.cpuMs * 1000) / checks)).toFixed(0)
      } checks/s per core`
    )
  } finally {
    target.stop()
    await redis.quit()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
