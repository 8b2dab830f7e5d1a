/**
 * Tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset), the default: the scheduler's jobs carry no
 * trace context, a probe passes none on even when a job brings one, and nothing is exported.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, References } from "effect"
import type { Redis } from "ioredis"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import * as Telemetry from "../../src/runtime/Telemetry.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"
import { type OtlpSink, otlpSink } from "./tracingSink.js"

const region = "quiet"

class Env extends Context.Service<
  Env,
  { readonly sink: OtlpSink; readonly redis: Redis; readonly prefix: string }
>()("test/Env") {}

/** The telemetry layer as the service builds it, from a configuration without an endpoint. */
const telemetryWithoutEndpoint = Telemetry.layer({ serviceName: "status-page" }).pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ OTEL_SERVICE_NAME: "quiet", LOG_FORMAT: "text" })))
)

const Stack = Layer.unwrap(Effect.gen(function*() {
  const sink = yield* otlpSink
  const { prefix, redis } = yield* redisPrefix
  const transport = RedisJobTransport.layer({ url: redisUrl, prefix })
  const probe = ProbeAgent.layer({ region, name: "quiet-1", concurrency: 4, claimIdleMs: 30_000, readBlockMs: 200 })
  return Layer.mergeAll(CheckScheduler, probe).pipe(
    Layer.provide(transport),
    Layer.provideMerge(LiveTestServer()),
    Layer.provide(telemetryWithoutEndpoint),
    Layer.merge(Layer.succeed(Env, { sink, redis, prefix }))
  )
}))

const entries = (redis: Redis, key: string) =>
  Effect.promise(async () => (await redis.xrange(key, "-", "+")).map(([, fields]) => fields[1]!))

layer(Stack, { excludeTestServices: true, timeout: "60 seconds" })("tracing off", (it) => {
  it.effect("no span is exported, jobs carry no traceparent and results pass none on", () =>
    Effect.gen(function*() {
      const { prefix, redis, sink } = yield* Env
      expect(yield* Telemetry.TracingEnabled).toBe(false)
      // The tracer is Effect's own (as in a bare runtime), which sends nothing anywhere.
      expect(yield* Effect.tracer).toBe(Effect.runSync(Effect.tracer))

      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Quiet" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "tcp",
          url: "127.0.0.1:9",
          intervalSeconds: 10,
          timeoutMs: 500,
          failureThreshold: 1,
          regions: [region]
        }
      })
      const jobs = yield* eventually(
        entries(redis, `${prefix}jobs:${region}`),
        (all) => all.some((job) => job.includes(monitor.id)),
        15_000
      )
      const job = jobs.find((text) => text.includes(monitor.id))!
      expect(JSON.parse(job)).toMatchObject({ monitorId: monitor.id })
      expect(job).not.toContain("traceparent")

      // A job that brings a trace context (from a server that traces): the probe, not tracing, passes none on.
      const carried = { ...JSON.parse(job), traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01` }
      yield* Effect.promise(() => redis.xadd(`${prefix}jobs:${region}`, "*", "job", JSON.stringify(carried)))
      const results = yield* eventually(
        entries(redis, `${prefix}results:${region}`),
        (all) => all.filter((text) => text.includes(`"jobId":"${carried.id}"`)).length >= 2,
        15_000
      )
      const reported = results.filter((text) => text.includes(`"jobId":"${carried.id}"`))
      expect(reported.length).toBeGreaterThanOrEqual(2)
      for (const text of reported) expect(text).not.toContain("traceparent")
      expect(sink.requests).toEqual([])
    }))

  it.effect("Effect's tracer is off: a span made anyway is a no-op, neither timed nor recorded", () =>
    Effect.gen(function*() {
      expect(yield* References.TracerEnabled).toBe(false)
      const span = yield* Effect.currentSpan.pipe(Effect.withSpan("anything", { attributes: { a: 1 } }))
      expect({ spanId: span.spanId, sampled: span.sampled, attributes: span.attributes.size }).toEqual({
        spanId: "noop",
        sampled: false,
        attributes: 0
      })
    }).pipe(Effect.provide(telemetryWithoutEndpoint)))
})
