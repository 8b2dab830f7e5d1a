/**
 * A check's trace across Redis, with a receiver started by the test: the scheduler's span for
 * a job is the parent of the check span of the real probe agent (`probes/main.ts`, a child
 * process exporting on its own), and ingest's span for the batch that stored the result links
 * to that check span. The trace context rides in the job and in the result; a forged or
 * malformed one is ignored, never a reason to drop the job or the result.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { expect, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"
import type { Redis } from "ioredis"

import { latestSlot, slotOffset } from "../../src/domain/Slots.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { type Service, startService } from "../support/ChildProcess.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"
import { type OtlpSink, otlpSink, tracingTo } from "./tracingSink.js"

const region = "traced"

interface Fixture {
  readonly sink: OtlpSink
  readonly redis: Redis
  readonly prefix: string
  readonly target: string
  readonly probe: Service
}
class Env extends Context.Service<Env, Fixture>()("test/Env") {}

const target = Effect.acquireRelease(
  Effect.promise(async () => {
    const server = createServer((_request, response) => response.end("ok"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return server
  }),
  (server) =>
    Effect.promise(() => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    })
)

/** The probe agent as `npm run probe` runs it, exporting its spans to `sink`; stopped with SIGTERM (which flushes them). */
const probeAgent = (sink: OtlpSink, prefix: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const probe = startService("probes/main.ts", {
        REDIS_URL: redisUrl,
        REDIS_STREAM_PREFIX: prefix,
        PROBE_REGION: region,
        PROBE_NAME: "traced-1",
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_BSP_SCHEDULE_DELAY: "50"
      }, { directNode: true })
      const deadline = Date.now() + 30_000
      while (!probe.output().includes("probe ready")) {
        if (Date.now() > deadline || probe.child.exitCode !== null) {
          throw new Error(`probe did not start\n${probe.output()}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      return probe
    }),
    (probe) =>
      Effect.promise(async () => {
        probe.child.kill("SIGTERM")
        await probe.exited
      })
  )

const Stack = Layer.unwrap(Effect.gen(function*() {
  const sink = yield* otlpSink
  const { prefix, redis } = yield* redisPrefix
  const server = yield* target
  const probe = yield* probeAgent(sink, prefix)
  const fixture: Fixture = {
    sink,
    redis,
    prefix,
    target: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    probe
  }
  return Layer.mergeAll(CheckScheduler, IngestConsumer).pipe(
    Layer.provide(RedisJobTransport.layer({ url: redisUrl, prefix })),
    Layer.provideMerge(LiveTestServer()),
    Layer.provide(tracingTo(sink, "status-page")),
    Layer.merge(Layer.succeed(Env, fixture))
  )
}))

/** The entries of a stream, as [id, payload] with the payload's JSON parsed. */
const entries = (redis: Redis, key: string) =>
  Effect.promise(async () =>
    (await redis.xrange(key, "-", "+")).map(([, fields]) => JSON.parse(fields[1]!) as Record<string, unknown>)
  )

layer(Stack, { excludeTestServices: true, timeout: "90 seconds" })("a check's trace across Redis", (it) => {
  it.effect("scheduler → probe → ingest: one trace, parent ids chained, ingest's batch linked to the check", () =>
    Effect.gen(function*() {
      const { prefix, redis, sink, target } = yield* Env
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Traced" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: target,
          intervalSeconds: 10,
          timeoutMs: 2000,
          failureThreshold: 1,
          regions: [region]
        }
      })

      const traced = (all: ReadonlyArray<(typeof sink.spans)[number]>) => {
        const dispatch = all.find((span) =>
          span.name === "CheckScheduler.dispatch" && span.attributes["monitor.id"] === monitor.id
        )
        const check = dispatch &&
          all.find((span) => span.name === "ProbeAgent.check" && span.parentSpanId === dispatch.spanId)
        const ingest = check && all.find((span) =>
          span.name === "ResultIngest.ingest" &&
          span.links.some((link) => link.traceId === check.traceId && link.spanId === check.spanId)
        )
        return { dispatch, check, ingest }
      }
      const { check, dispatch, ingest } = traced(
        yield* eventually(
          Effect.sync(() => sink.spans),
          (all) => traced(all).ingest !== undefined,
          30_000
        )
      )

      expect(dispatch).toMatchObject({
        service: "status-page",
        kind: 4, // producer
        parentSpanId: undefined,
        attributes: { "check.type": "http", "check.job_id": expect.stringMatching(`^${monitor.id}:`) }
      })
      expect(check).toMatchObject({
        service: "status-page-probe",
        traceId: dispatch!.traceId,
        kind: 5, // consumer
        attributes: {
          "monitor.id": monitor.id,
          "check.job_id": dispatch!.attributes["check.job_id"],
          "probe.region": region,
          "check.ok": true
        }
      })
      expect(ingest!.service).toBe("status-page")
      // The check's SQL: the batch's statements are children of ingest's span.
      expect(
        sink.spans.some((span) =>
          typeof span.attributes["db.query.text"] === "string" && span.parentSpanId !== undefined
        )
      )
        .toBe(true)

      // What crossed Redis: the job carried the scheduler's span, the result the probe's.
      const jobs = yield* entries(redis, `${prefix}jobs:${region}`)
      const job = jobs.find((entry) => entry.id === dispatch!.attributes["check.job_id"])
      expect(job?.traceparent).toBe(`00-${dispatch!.traceId}-${dispatch!.spanId}-01`)
      const results = yield* entries(redis, `${prefix}results:${region}`)
      const result = results.find((entry) => entry.jobId === job?.id)
      expect(result?.traceparent).toBe(`00-${check!.traceId}-${check!.spanId}-01`)
      const stored = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(stored.length).toBeGreaterThan(0)
    }))

  it.effect("a forged or malformed traceparent in a job or a result is ignored: the job runs, the result is stored", () =>
    Effect.gen(function*() {
      const { prefix, redis, sink, target } = yield* Env
      const client = yield* ApiClient
      const now = Date.now()
      const malformed: ReadonlyArray<unknown> = [
        "00-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz-zzzzzzzzzzzzzzzz-01",
        `00-${"0".repeat(32)}-${"1".repeat(16)}-01`, // an all-zero trace id
        `00-${"a".repeat(32)}-${"b".repeat(16)}-01${"x".repeat(10_000)}`,
        42,
        { traceId: "a".repeat(32) }
      ]
      // Jobs as anyone able to write the stream could XADD them.
      const forged = malformed.map((traceparent, i) => ({
        id: `forged-${i}:${now}`,
        monitorId: `forged-${i}`,
        type: "http",
        url: target,
        timeoutMs: 2000,
        expectedStatusCode: 200,
        intervalSeconds: 60,
        scheduledAt: now,
        traceparent
      }))
      for (const job of forged) {
        yield* Effect.promise(() => redis.xadd(`${prefix}jobs:${region}`, "*", "job", JSON.stringify(job)))
      }
      const checks = yield* eventually(
        Effect.sync(() => sink.spans.filter((span) => String(span.attributes["check.job_id"]).startsWith("forged-"))),
        (found) => found.filter((span) => span.name === "ProbeAgent.check").length === forged.length,
        20_000
      )
      // Each ran, in a trace of its own: no parent taken from what it carried.
      for (const span of checks) expect(span.parentSpanId).toBeUndefined()
      const results = yield* eventually(
        entries(redis, `${prefix}results:${region}`),
        (all) => forged.every((job) => all.some((entry) => entry.jobId === job.id)),
        10_000
      )
      expect(forged.every((job) => results.some((entry) => entry.jobId === job.id && entry.ok === true))).toBe(true)

      // A result carrying garbage is stored all the same (a run of a real monitor, on its slots).
      const component = yield* client.components.create({ payload: { name: "Forged results" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: target,
          intervalSeconds: 3600,
          timeoutMs: 2000,
          failureThreshold: 1,
          regions: ["elsewhere"]
        }
      })
      const intervalMs = 3_600_000
      // Its current slot: ingest admits no run before the one in progress at the monitor's creation.
      const scheduledAt = latestSlot(slotOffset(monitor.id, intervalMs), intervalMs, Date.now())
      const result = {
        jobId: `${monitor.id}:${scheduledAt}`,
        monitorId: monitor.id,
        region: "elsewhere",
        probe: "forger",
        scheduledAt,
        checkedAt: scheduledAt + 10,
        ok: true,
        durationMs: 12,
        timings: { dnsMs: null, connectMs: 1, tlsMs: null, firstByteMs: 5 },
        statusCode: 200,
        error: null,
        sslDaysLeft: null,
        traceparent: "not a traceparent at all"
      }
      yield* Effect.promise(() => redis.xadd(`${prefix}results:elsewhere`, "*", "result", JSON.stringify(result)))
      const stored = yield* eventually(
        client.monitors.results({ params: { id: monitor.id }, query: {} }),
        (list) => list.length > 0,
        15_000
      )
      expect(DateTime.toEpochMillis(stored[0]!.scheduledAt)).toBe(scheduledAt)
    }))
})
