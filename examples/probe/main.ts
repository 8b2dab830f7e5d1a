/**
 * An app that embeds only the probe agent (`tsx examples/probe/main.ts`): no database, no HTTP
 * server. It serves one region from the Redis at ACME_REDIS_URL, as the consumer ACME_PROBE_NAME,
 * reading the streams under ACME_STREAM_PREFIX, until SIGTERM; the checks in flight finish first.
 *
 * An installed app imports the same names from "status-page-service/probe".
 */
import { NodeRuntime } from "@effect/platform-node"
import { Config, Effect, Layer } from "effect"

import { ProbeAgent, RedisJobTransport } from "../../probes/index.js"

const AcmeProbeConfig = Config.all({
  redisUrl: Config.Redacted("ACME_REDIS_URL"),
  streamPrefix: Config.String("ACME_STREAM_PREFIX").pipe(Config.withDefault("")),
  region: Config.String("ACME_REGION").pipe(Config.withDefault("acme-east")),
  name: Config.String("ACME_PROBE_NAME").pipe(Config.withDefault("acme-probe-1"))
})

const ProbeLive = Layer.unwrap(
  Effect.map(
    AcmeProbeConfig,
    (config) =>
      ProbeAgent.layer({ region: config.region, name: config.name, concurrency: 8, claimIdleMs: 30_000 }).pipe(
        // A probe's Redis user may not run INFO, which ioredis' ready check does.
        Layer.provide(RedisJobTransport.layer({ url: config.redisUrl, prefix: config.streamPrefix, readyCheck: false }))
      )
  )
)

Layer.launch(ProbeLive).pipe(NodeRuntime.runMain)
