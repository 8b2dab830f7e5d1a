/**
 * A probe agent (`probes/main.ts`, as `npm run probe` runs it) with PROBE_METRICS_PORT serves
 * its own /metrics: after a check of a loopback server, the check is counted by type and
 * outcome, with its duration, next to the jobs in flight.
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

import { Schema } from "effect"
import { Redis } from "ioredis"
import parse from "parse-prometheus-text-format"
import { afterAll, beforeAll, expect, it } from "vitest"

import { CheckJob } from "../../src/domain/CheckJob.js"
import { freePort, type Service, startService } from "../support/ChildProcess.js"
import { redisUrl } from "../support/Redis.js"

const encodeJob = Schema.encodeSync(Schema.parseJson(CheckJob))
const prefix = `test:${randomUUID()}:`
const redis = new Redis(redisUrl)
let probe: Service
let target: http.Server
let metricsUrl: string

const poll = async <A>(what: string, read: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await read().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}\n${probe.output()}`)
}

beforeAll(async () => {
  target = http.createServer((_request, response) => response.end("ok"))
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve))
  const port = await freePort()
  metricsUrl = `http://127.0.0.1:${port}/metrics`
  probe = startService("probes/main.ts", {
    REDIS_URL: redisUrl,
    REDIS_STREAM_PREFIX: prefix,
    PROBE_REGION: "eu",
    PROBE_NAME: "metrics-probe",
    PROBE_METRICS_PORT: String(port),
    HOST: "127.0.0.1",
    OUTBOUND_DENY: "none"
  }, { directNode: true })
  await poll("the probe to be ready", async () => probe.output().includes("probe ready") || undefined)
}, 60_000)

afterAll(async () => {
  probe.child.kill("SIGTERM")
  await probe.exited
  target.close()
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

it("serves the probe's metrics on PROBE_METRICS_PORT, counting a check by type and outcome", async () => {
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`
  const job = CheckJob.forRun(
    { monitorId: "m1", type: "http", url, timeoutMs: 5_000, expectedStatusCode: 200, intervalSeconds: 60 },
    Date.now()
  )
  await redis.xadd(`${prefix}jobs:eu`, "*", "job", encodeJob(job))
  const families = await poll("the check to be counted", async () => {
    const response = await fetch(metricsUrl)
    const parsed = parse(await response.text())
    const checks = parsed.find((family) => family.name === "status_page_probe_checks_total")
    return checks?.metrics.some((m) => m.labels?.type === "http" && m.labels?.outcome === "ok" && m.value === "1")
      ? parsed
      : undefined
  })
  const types = new Map(families.map((family) => [family.name, family.type]))
  expect(types.get("status_page_probe_check_duration_seconds")).toBe("HISTOGRAM")
  expect(types.get("status_page_probe_jobs_in_flight")).toBe("GAUGE")
}, 60_000)
