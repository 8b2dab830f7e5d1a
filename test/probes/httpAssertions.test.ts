/**
 * JSON assertions of the `http` check against a real loopback HTTP server: the check itself,
 * a probe agent running jobs that carry them over the in-process and the Redis transports, and
 * the whole fleet in one process (API, scheduler, in-process probe, ingest).
 */
import type { ServerResponse } from "node:http"

import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { httpCheck } from "../../probes/checks/http.js"
import { runCheck } from "../../probes/checks/runCheck.js"
import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob, type CheckResult, isMissed } from "../../src/domain/CheckJob.js"
import type { JsonAssertion } from "../../src/domain/JsonAssertion.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { readAll } from "../queue/transportContract.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const json = (response: ServerResponse, value: unknown, status = 200) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value))

/** A health endpoint and the answers that fail its assertions. */
const target = httpServer((request, response) => {
  switch (request.url) {
    case "/ok":
      return json(response, { status: "ok", version: "2.14.1", data: { count: 3, regions: ["eu", "us"] } })
    case "/degraded":
      return json(response, { status: "degraded", error: { code: 17 }, data: { regions: [] } })
    case "/chunked": {
      // The document arrives in pieces of a few bytes; the check judges it whole.
      response.writeHead(200, { "content-type": "application/json" })
      const text = JSON.stringify({ status: "ok", data: { count: 3 } })
      for (let at = 0; at < text.length; at += 3) response.write(text.slice(at, at + 3))
      return response.end()
    }
    case "/html":
      return response.writeHead(200, { "content-type": "text/html" }).end("<html>fine</html>")
    case "/empty":
      return response.writeHead(200).end()
    case "/huge":
      // 2 MB of a string that never closes within the first 1 MB the check reads.
      response.writeHead(200, { "content-type": "application/json" })
      response.write("{\"pad\":\"")
      return response.end(`${"x".repeat(2 * 1024 * 1024)}"}`)
    case "/unavailable":
      return json(response, { status: "ok" }, 503)
    case "/long":
      return json(response, { status: "s".repeat(5000) })
    case "/almost":
      // Almost a match for ^(a|a)*$: every way of splitting the a's is tried before it fails.
      return json(response, { status: `${"a".repeat(40)}!` })
    default:
      return response.writeHead(404).end()
  }
})

const check = (url: string, assertions: ReadonlyArray<JsonAssertion>, more: Record<string, unknown> = {}) =>
  httpCheck({ url, timeoutMs: 5000, expectedStatusCode: 200, assertions, ...more })

const healthy: ReadonlyArray<JsonAssertion> = [
  { path: "$.status", op: "==", value: "ok" },
  { path: "/data/count", op: ">", value: 2 },
  { path: "$.data.regions", op: "contains", value: "eu" },
  { path: "$.version", op: "matches", value: "^2\\.\\d+" },
  { path: "/error", op: "exists", value: false }
]

describe("http check with JSON assertions", () => {
  it.effect("passes when every assertion holds, on a whole or a chunked body", () =>
    Effect.gen(function*() {
      const server = yield* target
      expect(yield* check(`${server.url}/ok`, healthy)).toMatchObject({ ok: true, statusCode: 200, error: null })
      expect(yield* check(`${server.url}/chunked`, healthy.slice(0, 2))).toMatchObject({ ok: true, error: null })
    }).pipe(Effect.scoped))

  it.effect("fails with the first failing assertion, in the fixed words", () =>
    Effect.gen(function*() {
      const server = yield* target
      const degraded = `${server.url}/degraded`
      const errorOf = (assertions: ReadonlyArray<JsonAssertion>) =>
        Effect.map(check(degraded, assertions), (outcome) => {
          expect(outcome).toMatchObject({ ok: false, statusCode: 200 })
          return outcome.error
        })
      expect(yield* errorOf(healthy)).toBe("assertion 1 failed: $.status == \"ok\", got \"degraded\"")
      expect(yield* errorOf(healthy.slice(1))).toBe("assertion 1 failed: /data/count > 2, it does not exist")
      expect(yield* errorOf([{ path: "$.status", op: "exists" }, { path: "/data/count", op: "exists" }])).toBe(
        "assertion 2 failed: /data/count exists, it does not"
      )
      expect(yield* errorOf([{ path: "/error", op: "exists", value: false }])).toBe(
        "assertion 1 failed: /error does not exist, got {\"code\":17}"
      )
      expect(yield* errorOf([{ path: "$.data.regions", op: "contains", value: "eu" }])).toBe(
        "assertion 1 failed: $.data.regions contains \"eu\", got []"
      )
      expect(yield* errorOf([{ path: "$.error.code", op: "<", value: 10 }])).toBe(
        "assertion 1 failed: $.error.code < 10, got 17"
      )
      expect(yield* errorOf([{ path: "$.status", op: "matches", value: "^(ok|up)$" }])).toBe(
        "assertion 1 failed: $.status matches \"^(ok|up)$\", got \"degraded\""
      )
    }).pipe(Effect.scoped))

  it.effect("says when the answer is not JSON: another format, no body, or more than the 1 MB it reads", () =>
    Effect.gen(function*() {
      const server = yield* target
      const exists: ReadonlyArray<JsonAssertion> = [{ path: "$", op: "exists" }]
      expect(yield* check(`${server.url}/html`, exists)).toMatchObject({
        ok: false,
        statusCode: 200,
        error: "the answer is not JSON: it is not valid JSON"
      })
      expect(yield* check(`${server.url}/empty`, exists)).toMatchObject({
        ok: false,
        error: "the answer is not JSON: the body is empty"
      })
      expect(yield* check(`${server.url}/huge`, exists)).toMatchObject({
        ok: false,
        error: "the answer is not JSON: it is longer than the 1 MB a check reads"
      })
    }).pipe(Effect.scoped))

  it.effect("stops a pattern that backtracks for ages on the target's text: the assertion fails, the probe goes on", () =>
    Effect.gen(function*() {
      const server = yield* target
      // No nested quantifier, so the API takes it; on 41 characters it would run for years.
      const started = performance.now()
      expect(yield* check(`${server.url}/almost`, [{ path: "$.status", op: "matches", value: "^(a|a)*$" }]))
        .toMatchObject({
          ok: false,
          error: "assertion 1 failed: $.status matches \"^(a|a)*$\", the pattern ran longer than 100 ms"
        })
      expect(performance.now() - started).toBeLessThan(5_000)
      expect(yield* check(`${server.url}/ok`, [{ path: "$.status", op: "matches", value: "^(o|o)k$" }])).toMatchObject({
        ok: true
      })
    }).pipe(Effect.scoped))

  it.effect("judges the status and the body texts first", () =>
    Effect.gen(function*() {
      const server = yield* target
      expect(yield* check(`${server.url}/unavailable`, healthy)).toMatchObject({
        ok: false,
        statusCode: 503,
        error: "expected status 200, got 503"
      })
      expect(yield* check(`${server.url}/degraded`, healthy, { bodyContains: "\"ok\"" })).toMatchObject({
        ok: false,
        error: "expected body to contain \"\\\"ok\\\"\" in the first 1 MB, not found"
      })
    }).pipe(Effect.scoped))

  it.effect("quotes at most 100 characters of a value, and a job's check carries its assertions", () =>
    Effect.gen(function*() {
      const server = yield* target
      const job = CheckJob.forRun({
        monitorId: "m",
        type: "http",
        url: `${server.url}/long`,
        timeoutMs: 5000,
        expectedStatusCode: 200,
        intervalSeconds: 60,
        assertions: [{ path: "$.status", op: "==", value: "ok" }]
      }, Date.now())
      const outcome = yield* runCheck(job)
      expect(outcome.error).toBe(`assertion 1 failed: $.status == "ok", got "${"s".repeat(99)}…`)
    }).pipe(Effect.scoped))
})

const agentOptions = { region: "eu", name: "p1", concurrency: 2, claimIdleMs: 30_000, readBlockMs: 100 }

/** A probe agent on the transport given, running one job with assertions against each answer. */
const throughAgent = Effect.gen(function*() {
  const server = yield* target
  const queue = yield* JobTransport
  const ingest = yield* queue.resultConsumer("ingest-test")
  yield* Layer.buildWithScope(ProbeAgent.layer(agentOptions), yield* Effect.scope)
  const job = (monitorId: string, path: string) =>
    CheckJob.forRun({
      monitorId,
      type: "http",
      url: `${server.url}${path}`,
      timeoutMs: 5000,
      expectedStatusCode: 200,
      intervalSeconds: 60,
      regions: ["eu"],
      assertions: healthy
    }, Date.now())
  yield* queue.publishJobs([job("up", "/ok"), job("down", "/degraded")])
  const reports = (yield* readAll(ingest, 2)).map((delivery) => delivery.value)
  const results = reports.filter((report): report is CheckResult => !isMissed(report))
  expect(results.map((result) => [result.monitorId, result.ok, result.error]).sort()).toEqual([
    ["down", false, "assertion 1 failed: $.status == \"ok\", got \"degraded\""],
    ["up", true, null]
  ])
})

describe("a probe agent runs jobs with assertions", () => {
  it.live("over the in-process transport", () =>
    throughAgent.pipe(Effect.scoped, Effect.provide(InProcessJobTransport.layer())))

  it.live("over the Redis transport", () =>
    Effect.gen(function*() {
      const { prefix } = yield* redisPrefix
      yield* throughAgent.pipe(Effect.provide(RedisJobTransport.layer({ url: redisUrl, prefix })))
    }).pipe(Effect.scoped))
})

const Fleet = Layer.mergeAll(CheckScheduler, IngestConsumer, ProbeAgent.InProcessProbeLive).pipe(
  Layer.provide(InProcessJobTransport.layer()),
  Layer.provideMerge(LiveTestServer())
)

layer(Fleet, { excludeTestServices: true, timeout: "60 seconds" })("the fleet in one process", (it) => {
  it.effect(
    "checks a monitor's assertions and records the failing one as the run's error",
    () =>
      Effect.gen(function*() {
        let answer: unknown = { status: "degraded" }
        const server = yield* httpServer((_request, response) => json(response, answer))
        const client = yield* ApiClient
        const component = yield* client.components.create({ payload: { name: "JSON health" } })
        const monitor = yield* client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: `${server.url}/health`,
            intervalSeconds: 10,
            timeoutMs: 2000,
            failureThreshold: 1,
            assertions: [{ path: "$.status", op: "==", value: "ok" }]
          }
        })
        const latest = Effect.map(
          client.monitors.results({ params: { id: monitor.id }, query: {} }),
          (runs) => runs.flatMap((run) => run.outcome === "checked" ? [run] : [])[0]
        )
        // The scheduler reloads monitors every 5 s and runs a new one at its current slot.
        expect(yield* eventually(latest, (run) => run !== undefined, 20_000)).toMatchObject({
          ok: false,
          statusCode: 200,
          error: "assertion 1 failed: $.status == \"ok\", got \"degraded\""
        })
        answer = { status: "ok" }
        expect(yield* eventually(latest, (run) => run?.ok === true, 25_000)).toMatchObject({ ok: true, error: null })
      }).pipe(Effect.scoped),
    60_000
  )
})
