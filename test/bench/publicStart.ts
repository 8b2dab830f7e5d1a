/**
 * Benchmark (`npm run bench:public-start`): the public status JSON of the service as a self-hoster
 * runs it, `npm start` with every role in the one process (the API, the scheduler, the in-process
 * probe checking its monitors, ingest, the dispatcher), next to a bare node:http server in a
 * process of its own answering with the same status, headers and bytes. bench:public measures
 * the HTTP side alone, in its own process; this one asks what the reads get while the rest of
 * the service works beside them.
 *
 * The service: a fresh DATA_DIR (the embedded database), 20 components each with an `http`
 * monitor every 20 s against a bare target in a process of its own (test/bench/CheckTargets.ts,
 * 1 % answering 503), 5 active incidents and 3 maintenance windows, made through the admin API.
 * After one interval of checks, `GET /api/v1/status` is loaded by autocannon (its own process, 64
 * connections) in alternating rounds against the service and the bare server. Each round prints
 * requests/s, p50 and p99, and the CPU each server's process spent per request answered (from
 * /proc); the summary gives the ratio of the means and whether it reaches the target (0.85). It
 * measures and prints; it never fails on a number.
 *
 * Pinned (where `taskset` exists and the machine has at least two CPUs): each server's process,
 * every thread of it, on CPU 0 and autocannon on CPU 1, so that both servers get the same one
 * core and the load generator never takes turns with them on it. Unpinned, the kernel placed
 * them differently from round to round, and single runs of the same build spread from 0.62 to
 * 1.00 (docs/benchmarks.md).
 *
 *   npm run bench:public-start     (BENCH_ROUNDS 5, BENCH_SECONDS 5, BENCH_CONNECTIONS 64,
 *                                   BENCH_START_TIMEOUT 300 s, BENCH_SERVICE_NODE_OPTIONS,
 *                                   BENCH_COMPONENTS 20: with fewer than 13, no incident or window;
 *                                   0: the service with nothing to do beside the reads;
 *                                   BENCH_PIN 1: 0 leaves placement to the kernel)
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"

import { Effect } from "effect"

import { autocannon, type AutocannonResult, rawGet, type RawResponse } from "./Autocannon.js"
import { startCheckTargets } from "./CheckTargets.js"
import { apiKeyOf, npmStart, request } from "./NpmStart.js"
import { loadAverage, pidListeningOn, processCpu } from "./ProcessStats.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const startTimeoutMs = Number(process.env.BENCH_START_TIMEOUT ?? 300) * 1000
const serviceNodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS ?? ""
const target = 0.85
/** Components, each with a monitor; with none, no incident and no window either: the HTTP server alone. */
const components = Number(process.env.BENCH_COMPONENTS ?? 20)
const intervalSeconds = 20
const path = "/api/v1/status"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
const pinned = process.env.BENCH_PIN !== "0" && hasTaskset && availableParallelism() >= 2
/** Every thread of `pid` on CPU 0 (threads it starts later inherit it). */
const pinServer = (pid: number) => {
  if (pinned) execFileSync("taskset", ["-a", "-p", "-c", "0", String(pid)], { stdio: "ignore" })
}

/** The bare server: every request answered with the reference's status, headers and bytes. */
const bareServerScript = `
const http = require("node:http")
const { status, headers, body } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))
const bytes = Buffer.from(body, "base64")
const server = http.createServer((request, response) => {
  response.writeHead(status, headers)
  response.end(bytes)
})
server.listen(0, "127.0.0.1", () => process.send(server.address().port))
process.on("SIGTERM", () => process.exit(0))
`

const startBareServer = async (reference: RawResponse, folder: string) => {
  // Node writes these itself, per connection and response.
  const { connection: _c, date: _d, "keep-alive": _k, "transfer-encoding": _t, ...headers } = reference.headers
  const file = join(folder, "reference.json")
  await writeFile(file, JSON.stringify({ status: reference.status, headers, body: reference.body.toString("base64") }))
  const child = spawn(process.execPath, ["-e", bareServerScript, file], {
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message) => resolve(Number(message)))
    child.once("exit", (code) => reject(new Error(`the bare server ended: ${code}`)))
  })
  return { child, base: `http://127.0.0.1:${port}` }
}

/** One autocannon round, with the CPU the server's process spent per request answered, in µs. */
const round = async (base: string, pid: number) => {
  const before = processCpu(pid)
  const result = await Effect.runPromise(
    autocannon(`${base}${path}`, { connections, seconds, ...(pinned ? { cpus: "1" } : {}) })
  )
  return { ...result, cpu: ((processCpu(pid) - before) * 1e6) / Math.max(1, result.total) }
}

const mean = (results: ReadonlyArray<AutocannonResult & { cpu: number }>, key: "requestsPerSecond" | "p99" | "cpu") =>
  results.reduce((sum, r) => sum + r[key], 0) / results.length

const seed = async (base: string, authorization: string, targetUrl: (n: number) => string) => {
  const headers = { authorization }
  const ids: Array<string> = []
  for (let n = 0; n < components; n++) {
    const component = await request(base, "/api/v1/admin/components", {
      name: `Component ${n + 1}`,
      description: `Service number ${n + 1}`
    }, headers)
    const { id } = (await component.json()) as { id: string }
    ids.push(id)
    await request(base, "/api/v1/admin/monitors", {
      componentId: id,
      type: "http",
      url: targetUrl(n),
      intervalSeconds
    }, headers)
  }
  // The incidents name components 1–10 and the windows 11–13: only a page that has them gets them.
  if (components < 13) return
  for (let i = 0; i < 5; i++) {
    await request(base, "/api/v1/admin/incidents", {
      title: `Incident ${i + 1}`,
      severity: "major",
      message: "We are investigating elevated error rates.",
      componentIds: [ids[i]!, ids[i + 5]!]
    }, headers)
  }
  const day = 24 * 3600 * 1000
  for (let i = 0; i < 3; i++) {
    await request(base, "/api/v1/admin/maintenance", {
      title: `Maintenance ${i + 1}`,
      description: "Planned upgrade",
      scheduledStart: new Date(Date.now() + (i + 1) * day).toISOString(),
      scheduledEnd: new Date(Date.now() + (i + 1) * day + 3600 * 1000).toISOString(),
      componentIds: [ids[10 + i]!]
    }, headers)
  }
}

const main = async () => {
  const folder = await mkdtemp(join(tmpdir(), "sps-bench-public-start-"))
  const checkTargets = await startCheckTargets()
  const service = await npmStart({
    DATA_DIR: join(folder, "data"),
    ...(serviceNodeOptions === "" ? {} : { NODE_OPTIONS: serviceNodeOptions })
  }, startTimeoutMs)
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined
  try {
    const servicePid = pidListeningOn(service.port)
    if (servicePid === undefined) throw new Error(`nothing listens on ${service.port}`)
    const authorization = `Bearer ${await apiKeyOf(service)}`
    await seed(service.base, authorization, (n) => checkTargets.url("public-start", n))
    console.log(
      `npm start (pid ${servicePid}): ${components} components with an http monitor every ${intervalSeconds} s`
    )
    // One interval of checks, so every role has work when the reads begin.
    await sleep(intervalSeconds * 1000)
    const { distinct } = await checkTargets.counts("public-start")
    const reference = await rawGet(`${service.base}${path}`)
    bare = await startBareServer(reference, folder)
    pinServer(servicePid)
    pinServer(bare.child.pid!)
    console.log(
      `GET ${path}: ${reference.status}, ${reference.body.byteLength} bytes; ${distinct} of ${components} monitors checked so far`
    )
    console.log("round  server      req/s   p50 ms   p99 ms  non-2xx  CPU µs/req")
    type Round = Awaited<ReturnType<typeof round>>
    const totals = { service: [] as Array<Round>, bare: [] as Array<Round> }
    for (let n = 1; n <= rounds; n++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = n % 2 === 1 ? (["service", "bare"] as const) : (["bare", "service"] as const)
      for (const which of order) {
        const result = which === "service"
          ? await round(service.base, servicePid)
          : await round(bare.base, bare.child.pid!)
        totals[which].push(result)
        const cells = [result.requestsPerSecond, result.p50, result.p99, result.non2xx].map((v) =>
          v.toFixed(0).padStart(8)
        )
        console.log(
          `${String(n).padStart(5)}  ${which.padEnd(8)}${cells.join(" ")} ${result.cpu.toFixed(1).padStart(11)}`
        )
      }
    }
    const ratio = mean(totals.service, "requestsPerSecond") / mean(totals.bare, "requestsPerSecond")
    const cpuRatio = mean(totals.bare, "cpu") / mean(totals.service, "cpu")
    console.log(
      `\nmean: service ${mean(totals.service, "requestsPerSecond").toFixed(0)} req/s (p99 ${
        mean(totals.service, "p99").toFixed(1)
      } ms, ${mean(totals.service, "cpu").toFixed(1)} CPU µs/req), bare ${
        mean(totals.bare, "requestsPerSecond").toFixed(0)
      } req/s (p99 ${mean(totals.bare, "p99").toFixed(1)} ms, ${mean(totals.bare, "cpu").toFixed(1)} CPU µs/req)`
    )
    console.log(
      `throughput ratio ${ratio.toFixed(2)} (target >= ${target}: ${
        ratio >= target ? "met" : "NOT met"
      }); CPU per request, bare / service: ${cpuRatio.toFixed(2)}; ${
        pinned ? "servers on CPU 0, autocannon on CPU 1" : "not pinned"
      }; load average ${loadAverage()}`
    )
  } finally {
    bare?.child.kill("SIGTERM")
    await service.stop()
    checkTargets.stop()
    await rm(folder, { recursive: true, force: true })
  }
}

await main()
