/**
 * Probe agent entry point (`npm run probe`): serves PROBE_REGION from the Redis at REDIS_URL
 * until SIGTERM/SIGINT, after which the checks in flight finish and deliver their results.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"

import { environment, QueueConfig } from "../src/Config.js"
import * as RedisJobTransport from "../src/queue/RedisJobTransport.js"
import * as ProbeAgent from "./ProbeAgent.js"

const Transport = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* QueueConfig
  const url = yield* Option.match(config.redisUrl, {
    onNone: () =>
      Effect.fail(
        new Error(
          "REDIS_URL is required: a probe agent takes its jobs from Redis (without Redis the service runs its own in-process probe)"
        )
      ),
    onSome: Effect.succeed
  })
  return RedisJobTransport.layer({ url, prefix: config.streamPrefix })
}))

Layer.launch(ProbeAgent.layerConfig().pipe(Layer.provide(Transport))).pipe(
  Effect.withConfigProvider(environment()),
  NodeRuntime.runMain
)
