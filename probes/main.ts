/**
 * Probe agent entry point (`npm run probe`, or `node dist/probe.mjs` once bundled by
 * `npm run build:probe`): serves PROBE_REGION from the Redis at REDIS_URL (`rediss://` for TLS,
 * REDIS_CA_FILE for a private CA; a `redis+sentinel://` URL, or REDIS_SENTINELS with
 * REDIS_SENTINEL_NAME, for a master found through Redis Sentinel, src/runtime/RedisEndpoint.ts)
 * until SIGTERM/SIGINT, after which the checks in flight finish and deliver their results. It
 * authenticates as the user in the URL (REDIS_USERNAME with the pair), which in production may
 * read only its region's jobs and write only its region's results (docs/operations.md).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ConfigProvider, Effect, Layer, Option } from "effect"

import * as RedisJobTransport from "../src/queue/redis/RedisJobTransport.js"
import { environment, MetricsConfig, QueueConfig } from "../src/runtime/Config.js"
import { teardown } from "../src/runtime/Teardown.js"
import * as Telemetry from "../src/runtime/Telemetry.js"
import * as ProbeAgent from "./ProbeAgent.js"

const Transport = Layer.unwrap(Effect.gen(function*() {
  const config = yield* QueueConfig
  const url = yield* Option.match(config.redisUrl, {
    onNone: () =>
      Effect.fail(
        new Error(
          "REDIS_URL (or REDIS_SENTINELS with REDIS_SENTINEL_NAME) is required: a probe agent takes its jobs from Redis (without Redis the service runs its own in-process probe)"
        )
      ),
    onSome: Effect.succeed
  })
  return RedisJobTransport.layerConfig({ url, prefix: config.streamPrefix, readyCheck: false })
}))

/**
 * PROBE_METRICS_PORT: the probe's own /metrics. The exporter and its server are loaded only
 * then, so a probe without it does not start them (nor evaluate their code).
 */
const Metrics = Layer.unwrap(Effect.gen(function*() {
  const { host, probePort, token } = yield* MetricsConfig
  if (Option.isNone(probePort)) return Layer.empty
  const [{ metricsServer }, { MetricsExporter }] = yield* Effect.promise(() =>
    Promise.all([import("../src/runtime/MetricsServer.js"), import("../src/runtime/MetricsExporter.js")])
  )
  return metricsServer({ port: probePort.value, host, token }).pipe(
    Layer.provide(MetricsExporter.layer("status-page-probe"))
  )
}))

Layer.launch(
  ProbeAgent.layerConfig().pipe(
    Layer.merge(Metrics),
    Layer.provide(Transport),
    Layer.provide(Telemetry.layer({ serviceName: "status-page-probe" }))
  )
).pipe(
  Effect.provideService(ConfigProvider.ConfigProvider, environment()),
  // Stopped by SIGTERM/SIGINT once its checks in flight are done, it exits with 0.
  NodeRuntime.runMain({ teardown })
)
