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

/** A Redis user with `rules`, as docs/operations.md makes them; deleted when the scope closes. */
export const aclUser = (admin: Redis, kind: string, rules: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `test-${kind}-${randomUUID()}`
      const password = randomUUID()
      await admin.call("ACL", "SETUSER", name, "reset", "on", `>${password}`, ...rules)
      const url = new URL(redisUrl)
      url.username = name
      url.password = password
      return { name, url: url.toString() }
    }),
    ({ name }) => Effect.promise(() => admin.call("ACL", "DELUSER", name))
  )
