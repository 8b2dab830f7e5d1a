/**
 * A probe agent (`probes/main.ts`, as `npm run probe` runs it) with PROBE_METRICS_PORT serves
 * its own /metrics: after a check of a loopback server, the check is counted by type and
 * outcome, with its duration, next to the jobs in flight; a late job and another region's job
 * are counted as refused, by reason.
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

import { Schema } from "effect"
import { Redis } from "ioredis"
import { afterAll, beforeAll, expect, it } from "vitest"

import { CheckJob } from "../../src/domain/CheckJob.js"
import { metricsUrl, type Service, startService } from "../support/ChildProcess.js"
import { parseMetrics, valueOf } from "../support/Prometheus.js"
import { redisUrl } from "../support/Redis.js"

const encodeJob = Schema.encodeSync(Schema.fromJsonString(CheckJob))
const prefix = `test:${randomUUID()}:`
const redis = new Redis(redisUrl)
let probe: Service
let target: http.Server
let probeMetrics: string

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
  probe = startService("probes/main.ts", {
    REDIS_URL: redisUrl,
    REDIS_STREAM_PREFIX: prefix,
    PROBE_REGION: "eu",
    PROBE_NAME: "metrics-probe",
    // Any free port; the probe logs the one it got.
    PROBE_METRICS_PORT: "0",
    HOST: "127.0.0.1",
    OUTBOUND_DENY: "none"
  }, { directNode: true })
  await poll("the probe to be ready", async () => probe.output().includes("probe ready") || undefined)
  probeMetrics = await metricsUrl(probe, 20_000)
}, 60_000)

afterAll(async () => {
  probe.child.kill("SIGTERM")
  await probe.exited
  target.close()
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

it(
  "serves the probe's metrics on PROBE_METRICS_PORT, counting checks by type and outcome, and jobs refused",
  async () => {
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`
    const check = { type: "http", url, timeoutMs: 5_000, expectedStatusCode: 200, intervalSeconds: 60 } as const
    const jobs = [
      CheckJob.forRun({ ...check, monitorId: "m1" }, Date.now()),
      // More than an interval late: reported as missed, not run.
      CheckJob.forRun({ ...check, monitorId: "m-late" }, Date.now() - 5 * 60_000),
      // For another region only (on this region's stream): acknowledged, not run.
      CheckJob.forRun({ ...check, monitorId: "m-us", regions: ["us"] }, Date.now())
    ]
    for (const job of jobs) await redis.xadd(`${prefix}jobs:eu`, "*", "job", encodeJob(job))
    const families = await poll("the check and the refusals to be counted", async () => {
      const response = await fetch(probeMetrics)
      const parsed = parseMetrics(await response.text())
      return valueOf(parsed, "status_page_probe_checks_total", { type: "http", outcome: "ok" }) === 1 &&
          valueOf(parsed, "status_page_probe_jobs_refused_total", { reason: "late" }) === 1 &&
          valueOf(parsed, "status_page_probe_jobs_refused_total", { reason: "other_region" }) === 1
        ? parsed
        : undefined
    })
    const types = new Map(families.map((family) => [family.name, family.type]))
    expect(types.get("status_page_probe_checks_total")).toBe("COUNTER")
    expect(types.get("status_page_probe_check_duration_seconds")).toBe("HISTOGRAM")
    expect(types.get("status_page_probe_jobs_in_flight")).toBe("GAUGE")
    expect(types.get("status_page_probe_jobs_refused_total")).toBe("COUNTER")
    // Only the job of this region on time was run.
    expect(valueOf(families, "status_page_probe_checks_total")).toBe(1)
  },
  60_000
)
