/** Real Redis on loopback for the queue tests, with a stream prefix of its own per test. */
import { randomUUID } from "node:crypto"

import { Effect } from "effect"
import { Redis } from "ioredis"

export const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** A fresh `test:<uuid>:` prefix whose keys are deleted when the scope closes; plus a raw client. */
export const redisPrefix = Effect.acquireRelease(
  Effect.promise(async () => {
    const redis = new Redis(redisUrl, { lazyConnect: true })
    await redis.connect()
    return { redis, prefix: `test:${randomUUID()}:` }
  }),
  ({ prefix, redis }) =>
    Effect.promise(async () => {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      await redis.quit()
    })
)
