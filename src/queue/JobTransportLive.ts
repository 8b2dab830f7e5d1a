/** The transport the configuration asks for: Redis Streams with REDIS_URL (and REDIS_CA_FILE), in-process without. */
import { Effect, Layer, Option } from "effect"

import { QueueConfig } from "../Config.js"
import * as InProcessJobTransport from "./InProcessJobTransport.js"
import * as RedisJobTransport from "./RedisJobTransport.js"

export const JobTransportLive = Layer.unwrap(
  Effect.map(QueueConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => InProcessJobTransport.layer(),
      onSome: (url) => RedisJobTransport.layerConfig({ url, prefix: config.streamPrefix })
    }))
)
