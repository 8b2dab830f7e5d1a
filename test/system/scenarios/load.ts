/**
 * Load. The public endpoints of both instances at 64 connections for 60 s (autocannon in a
 * process of its own) while an operator adds an incident update every second; each update must
 * be visible on the public API of both instances within 1 s.
 */
import { execFile } from "node:child_process"

import { projectRoot } from "../../support/ChildProcess.js"
import { publicGet } from "../Client.js"
import { sleep } from "../Processes.js"
import type { TestBed } from "../TestBed.js"

const connections = 64
const seconds = 60
/** What the public reads during an outage: the status page and the public API, uptime included. */
const paths = [
  "/",
  "/api/v1/status",
  "/api/v1/status/components",
  "/api/v1/status/incidents",
  "/api/v1/status/maintenance",
  "/api/v1/status/uptime",
  "/api/v1/status/rss"
]
const visibleWithinMs = 1_000

export interface LoadReport {
  readonly connections: number
  readonly seconds: number
  readonly paths: ReadonlyArray<string>
  readonly requests: number
  readonly requestsPerSecond: number
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly errors: number
  readonly non2xx: number
  readonly updates: number
  readonly updatesFailed: number
  readonly visibility: { readonly p50Ms: number; readonly maxMs: number; readonly slowerThan1s: number }
}

interface AutocannonJson {
  readonly requests: { readonly average: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
}

const generateLoad = (urls: ReadonlyArray<string>) =>
  new Promise<AutocannonJson>((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "test/system/loadGenerator.ts"],
      {
        cwd: projectRoot,
        env: {
          PATH: process.env.PATH ?? "",
          LOAD_URLS: urls.join(","),
          LOAD_PATHS: paths.join(","),
          LOAD_CONNECTIONS: String(connections),
          LOAD_SECONDS: String(seconds)
        },
        maxBuffer: 16 * 1024 * 1024
      },
      (
        error,
        stdout,
        stderr
      ) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)))
    )
  })

export const runLoadScenario = async (bed: TestBed, log: (line: string) => void): Promise<LoadReport> => {
  const operator = bed.apis[0].operator
  const incident = await operator.ok<{ id: string }>("POST", "/api/v1/admin/incidents", {
    title: "Under load",
    message: "update 0",
    severity: "minor"
  })

  // What each request of the mix carries unpacked (the page grows with what the other scenarios left; what has 1 kB or more travels gzipped).
  const sizes = await Promise.all(
    paths.map(async (path) =>
      `${path} ${
        ((await (await fetch(`${bed.apis[0].baseUrl}${path}`)).arrayBuffer()).byteLength / 1024).toFixed(0)
      } kB`
    )
  )
  log(`  response sizes: ${sizes.join(", ")}`)
  const loadDone = generateLoad(bed.apis.map((api) => api.baseUrl))
  let loading = true
  void loadDone.finally(() => (loading = false))
  const visibility: Array<number> = []
  let updates = 0
  let updatesFailed = 0
  // One update a second: each is followed until both instances show it (or it counts as slow).
  while (loading) {
    const nextAt = Date.now() + 1_000
    const message = `update ${++updates}`
    const answer = await bed.apis[updates % 2]!.operator.request(
      "POST",
      `/api/v1/admin/incidents/${incident.id}/updates`,
      {
        status: "monitoring",
        message
      }
    )
    if (answer.status !== 201) {
      updatesFailed++
      log(`  update answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    } else {
      const acknowledgedAt = Date.now()
      const seenOn = await Promise.all(bed.apis.map(async (api) => {
        while (Date.now() - acknowledgedAt < visibleWithinMs * 3) {
          const list = await publicGet<Array<{ id: string; message: string }>>(api.baseUrl, "/api/v1/status/incidents")
          if (list.status === 200 && list.body.some((item) => item.id === incident.id && item.message === message)) {
            return Date.now() - acknowledgedAt
          }
          await sleep(20)
        }
        return Number.POSITIVE_INFINITY
      }))
      visibility.push(Math.max(...seenOn))
    }
    await sleep(Math.max(0, nextAt - Date.now()))
  }
  const load = await loadDone
  visibility.sort((a, b) => a - b)
  log(`  ${Math.round(load.requests.average)} requests/s, p99 ${load.latency.p99} ms; ${updates} updates`)
  return {
    connections,
    seconds,
    paths,
    requests: load.requests.total,
    requestsPerSecond: Math.round(load.requests.average),
    latencyMs: { p50: load.latency.p50, p99: load.latency.p99, max: load.latency.max },
    errors: load.errors + load.timeouts,
    non2xx: load.non2xx,
    updates,
    updatesFailed,
    visibility: {
      p50Ms: visibility[Math.floor(visibility.length / 2)] ?? 0,
      maxMs: visibility.at(-1) ?? 0,
      slowerThan1s: visibility.filter((ms) => ms > visibleWithinMs).length
    }
  }
}
