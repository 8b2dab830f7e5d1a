/**
 * Benchmark (`npm run bench:probe`): one probe process (probes/main.ts on Redis) running `http`
 * checks against a local HTTP target, each on a fresh connection, in checks per second; side by
 * side with a bare loop of the same requests (node:http, `agent: false`, same concurrency) in
 * the same run, and their ratio. It measures and prints; it never fails on a number.
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), BENCH_CHECKS (default 10000),
 * PROBE_CONCURRENCY (default 64). Target: >= 1,000 checks/s.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as http from "node:http"

import { Schema } from "effect"
import { Redis } from "ioredis"

import { CheckJob } from "../../src/domain/CheckJob.js"
import { projectRoot } from "../support/ChildProcess.js"

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const checks = Number(process.env.BENCH_CHECKS ?? 10_000)
const concurrency = Number(process.env.PROBE_CONCURRENCY ?? 64)
const prefix = `bench:${randomUUID()}:`
const encodeJob = Schema.encodeSync(Schema.parseJson(CheckJob))

/** The target runs in a process of its own, so both contenders meet the same server. */
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

const startProbe = () =>
  new Promise<{ stop: () => Promise<void> }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "probes/main.ts"], {
      cwd: projectRoot,
      env: {
        ...process.env,
        REDIS_URL: redisUrl,
        REDIS_STREAM_PREFIX: prefix,
        PROBE_REGION: "bench",
        PROBE_NAME: "bench-1",
        PROBE_CONCURRENCY: String(concurrency)
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const onData = (chunk: Buffer) => {
      output += chunk
      if (output.includes("probe ready")) {
        child.stdout.off("data", onData)
        child.stdout.resume()
        resolve({ stop: () => (child.kill("SIGTERM"), exited) })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("exit", (code) => reject(new Error(`probe exited (${code}) before it was ready:\n${output}`)))
  })

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

const probeRun = async (redis: Redis, url: string) => {
  const scheduledAt = Date.now()
  const jobs = Array.from(
    { length: checks },
    (_, i) =>
      CheckJob.forRun({
        monitorId: `bench${i}`,
        type: "http",
        url,
        timeoutMs: 10_000,
        expectedStatusCode: 200,
        intervalSeconds: 3600
      }, scheduledAt)
  )
  const started = performance.now()
  for (let i = 0; i < jobs.length; i += 1000) {
    const pipeline = redis.pipeline()
    for (const job of jobs.slice(i, i + 1000)) pipeline.xadd(`${prefix}jobs`, "*", "job", encodeJob(job))
    await pipeline.exec()
  }
  while ((await redis.xlen(`${prefix}results`)) < checks) await new Promise((resolve) => setTimeout(resolve, 20))
  const seconds = (performance.now() - started) / 1000
  const failures =
    (await redis.xrange(`${prefix}results`, "-", "+")).filter(([, fields]) => !fields[1]!.includes("\"ok\":true"))
      .length
  return { seconds, failures }
}

const main = async () => {
  const redis = new Redis(redisUrl)
  const target = await startTarget()
  const probe = await startProbe()
  const url = `http://127.0.0.1:${target.port}/health`
  try {
    console.log(`${checks} http checks, fresh connection each, concurrency ${concurrency}, target ${url}`)
    const bare = await bareLoop(url)
    const probed = await probeRun(redis, url)
    const bareRate = checks / bare.seconds
    const probeRate = checks / probed.seconds
    console.log(
      `bare loop (node:http, agent: false): ${bareRate.toFixed(0)} requests/s (${
        bare.seconds.toFixed(2)
      } s, ${bare.failures} failed)`
    )
    console.log(
      `probe agent (Redis jobs -> check -> result + ack): ${probeRate.toFixed(0)} checks/s (${
        probed.seconds.toFixed(2)
      } s, ${probed.failures} failed)`
    )
    console.log(
      `ratio probe / bare: ${(probeRate / bareRate).toFixed(2)}; target >= 1000 checks/s: ${
        probeRate >= 1000 ? "met" : "NOT met"
      }`
    )
  } finally {
    await probe.stop()
    target.stop()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
