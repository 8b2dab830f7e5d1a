/**
 * The real probe agent (`probes/main.ts` under tsx) as child processes on the real Redis:
 * regions and siblings, a SIGKILLed probe whose jobs a sibling finishes (once idle for the claim
 * time, or at once when the probe has gone silent), stale jobs recorded as missed, and a SIGTERM
 * that drains the checks in flight and leaves the consumer group. Each test uses its own stream prefix;
 * jobs go to each region's stream (`jobs:<region>`), reports come back on `results:<region>`
 * next to the probes' heartbeats.
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

import { Array as Arr, Result, Schema } from "effect"
import { Redis } from "ioredis"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

import { CheckJob, isMissed, ProbeReport } from "../../src/domain/CheckJob.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { type Service, startService } from "../support/ChildProcess.js"
import { redisUrl } from "../support/Redis.js"

const encodeJob = Schema.encodeSync(Schema.fromJsonString(CheckJob))
const decodeMessage = Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Union([ProbeReport, ProbeHeartbeat])))

let redis: Redis
let prefix: string
let children: Array<Service>
let servers: Array<http.Server>

beforeEach(async () => {
  redis = new Redis(redisUrl)
  prefix = `test:${randomUUID()}:`
  children = []
  servers = []
})

afterEach(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill("SIGKILL")
  await Promise.all(children.map((child) => child.exited))
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length > 0) await redis.del(...keys)
  await redis.quit()
})

const until = async (what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}\n${children.map((c) => c.output()).join("\n---\n")}`)
}

/**
 * Starts `probes/main.ts` as node itself with tsx's loader (what `npm run probe` runs), not
 * under the tsx wrapper binary: a SIGKILL must reach the probe, not just a wrapper around it.
 */
const startProbe = async (region: string, name: string, env: Record<string, string> = {}) => {
  const probe = startService("probes/main.ts", {
    REDIS_URL: redisUrl,
    REDIS_STREAM_PREFIX: prefix,
    PROBE_REGION: region,
    PROBE_NAME: name,
    ...env
  }, { directNode: true })
  children.push(probe)
  await until(`${name} to be ready`, () => probe.output().includes("probe ready"), 30_000)
  return probe
}

const target = async (handler: http.RequestListener) => {
  const server = http.createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Publishes `jobs` to the streams of `regions`, as the scheduler does. */
const publish = async (jobs: ReadonlyArray<CheckJob>, regions: ReadonlyArray<string> = ["eu"]) => {
  const pipeline = redis.pipeline()
  for (const region of regions) {
    for (const job of jobs) pipeline.xadd(`${prefix}jobs:${region}`, "*", "job", encodeJob(job))
  }
  await pipeline.exec()
}

const httpJobs = (count: number, url: string, options: { scheduledAt?: number; tag?: string } = {}) =>
  Array.from({ length: count }, (_, i) =>
    CheckJob.forRun(
      {
        monitorId: `${options.tag ?? "m"}${i}`,
        type: "http",
        url,
        timeoutMs: 20_000,
        expectedStatusCode: 200,
        intervalSeconds: 60
      },
      options.scheduledAt ?? Date.now()
    ))

/** What the probes of `regions` published on their results streams, heartbeats aside. */
const messages = async (regions: ReadonlyArray<string>) =>
  (await Promise.all(regions.map((region) => redis.xrange(`${prefix}results:${region}`, "-", "+")))).flat().map((
    [, fields]
  ) => decodeMessage(fields[1]))
/** What the probes published: results, and misses. */
const reports = async (regions: ReadonlyArray<string> = ["eu", "us"]) =>
  Arr.partition(
    (await messages(regions)).filter((message): message is ProbeReport => !(message instanceof ProbeHeartbeat)),
    (report) => isMissed(report) ? Result.fail(report) : Result.succeed(report)
  )
const results = async () => (await reports())[0]
const reportCount = async () => (await reports()).flat().length

const pendingJobs = async (region: string) =>
  Number((await redis.xpending(`${prefix}jobs:${region}`, region) as [number])[0])

describe("probe agents on Redis Streams (child processes)", () => {
  it("every region checks every job once, siblings share the work, stale jobs are recorded as missed", async () => {
    const paths = new Set<string>()
    const url = await target((request, response) => {
      paths.add(request.url!)
      setTimeout(() => response.end("ok"), 10)
    })
    await Promise.all([startProbe("eu", "eu-1"), startProbe("eu", "eu-2"), startProbe("us", "us-1")])
    const fresh = httpJobs(60, `${url}/ok`)
    const stale = httpJobs(5, `${url}/stale`, { scheduledAt: Date.now() - 61_000, tag: "stale" })
    await publish([...stale, ...fresh], ["eu", "us"])

    await until("120 results and 10 misses", async () => (await reportCount()) >= 130)
    await until(
      "every job acknowledged",
      async () => (await pendingJobs("eu")) === 0 && (await pendingJobs("us")) === 0
    )
    const [all, misses] = await reports()
    expect(all).toHaveLength(120)
    // Not run: one miss per stale job and region instead.
    expect([...paths]).toEqual(["/ok"])
    expect(misses.map((m) => `${m.region} ${m.jobId}`).sort()).toEqual(
      ["eu", "us"].flatMap((region) => stale.map((job) => `${region} ${job.id}`)).sort()
    )
    expect(misses.every((m) => m.reason === "late" && m.recordedAt - m.scheduledAt > 60_000)).toBe(true)
    for (const region of ["eu", "us"]) {
      const ids = all.filter((r) => r.region === region).map((r) => r.jobId)
      expect(new Set(ids).size).toBe(60)
      expect(ids.sort()).toEqual(fresh.map((j) => j.id).sort())
    }
    expect(all.every((r) => r.ok)).toBe(true)
    const byProbe = (name: string) => all.filter((r) => r.probe === name).length
    expect(byProbe("eu-1")).toBeGreaterThan(0)
    expect(byProbe("eu-2")).toBeGreaterThan(0)
    expect(byProbe("eu-1") + byProbe("eu-2")).toBe(60)
    expect(byProbe("us-1")).toBe(60)
    // Each probe announced itself on its region's stream when it started.
    for (const region of ["eu", "us"]) {
      const names = (await messages([region])).flatMap((message) =>
        message instanceof ProbeHeartbeat ? [message.name] : []
      )
      expect([...new Set(names)].sort()).toEqual(region === "eu" ? ["eu-1", "eu-2"] : ["us-1"])
    }
  }, 90_000)

  it(
    "jobs held by a SIGKILLed probe are finished by a sibling of its region once idle for the claim time",
    async () => {
      const claimIdleMs = 1500
      let requests = 0
      const url = await target((_request, response) => {
        // The first five requests (the doomed probe's) never get an answer.
        if (++requests > 5) response.end("ok")
      })
      const env = { QUEUE_CLAIM_IDLE_MS: String(claimIdleMs), PROBE_CONCURRENCY: "10" }
      const doomed = await startProbe("eu", "doomed", env)
      const jobs = httpJobs(5, `${url}/slow`)
      await publish(jobs)
      await until("the doomed probe to hold five jobs", () => requests === 5)
      await startProbe("eu", "sibling", env)
      // Kept alive while its owner lives: the sibling has claimed nothing.
      await new Promise((resolve) => setTimeout(resolve, claimIdleMs))
      expect(await reportCount()).toBe(0)
      expect(await redis.xpending(`${prefix}jobs:eu`, "eu")).toMatchObject([5, expect.anything(), expect.anything(), [[
        "doomed",
        "5"
      ]]])

      doomed.child.kill("SIGKILL")
      await until("five results", async () => (await reportCount()) >= 5)
      const all = await results()
      expect(all.map((r) => r.jobId).sort()).toEqual(jobs.map((j) => j.id).sort())
      expect(all.every((r) => r.ok && r.probe === "sibling")).toBe(true)
      await until("every job acknowledged", async () => (await pendingJobs("eu")) === 0)
    },
    90_000
  )

  it(
    "jobs held by a SIGKILLed probe go to a sibling once it has been silent 5 s, long before the claim time",
    async () => {
      let requests = 0
      const url = await target((_request, response) => {
        // The first five requests (the doomed probe's) never get an answer.
        if (++requests > 5) response.end("ok")
      })
      // Ten minutes: a job that changes hands within the test does so by its probe's silence.
      const env = { QUEUE_CLAIM_IDLE_MS: "600000", PROBE_CONCURRENCY: "10" }
      const doomed = await startProbe("eu", "doomed", env)
      const jobs = httpJobs(5, `${url}/slow`)
      await publish(jobs)
      await until("the doomed probe to hold five jobs", () => requests === 5)
      const sibling = await startProbe("eu", "sibling", env)
      doomed.child.kill("SIGKILL")
      await until("five results", async () => (await reportCount()) >= 5, 30_000)
      const all = await results()
      expect(all.map((r) => r.jobId).sort()).toEqual(jobs.map((j) => j.id).sort())
      expect(all.every((r) => r.ok && r.probe === "sibling")).toBe(true)
      expect(sibling.output()).toContain("took over the jobs of a silent sibling")
      await until("every job acknowledged", async () => (await pendingJobs("eu")) === 0)
    },
    60_000
  )

  it("SIGTERM lets the checks in flight finish and deliver their results before exiting", async () => {
    let requests = 0
    const url = await target((_request, response) => {
      requests++
      setTimeout(() => response.end("ok"), 800)
    })
    const probe = await startProbe("eu", "draining")
    const jobs = httpJobs(3, `${url}/slow`)
    await publish(jobs)
    await until("three checks in flight", () => requests === 3)
    const stoppedAt = Date.now()
    probe.child.kill("SIGTERM")
    expect(await probe.exited).toBe(0)
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(500)
    const all = await results()
    expect(all.map((r) => r.jobId).sort()).toEqual(jobs.map((j) => j.id).sort())
    expect(all.every((r) => r.ok)).toBe(true)
    expect(await pendingJobs("eu")).toBe(0)
    // Holding nothing, it left its region's consumer group.
    const consumers = await redis.xinfo("CONSUMERS", `${prefix}jobs:eu`, "eu") as Array<Array<string>>
    expect(consumers.map((fields) => fields[1])).toEqual([])
  }, 60_000)
})
