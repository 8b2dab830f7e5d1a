/**
 * examples/probe: an app embedding only the probe agent, over the machine's Redis under a stream
 * prefix of its own. It takes a job from its region's stream and publishes the result.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { CheckJob, isMissed } from "../../src/domain/CheckJob.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { readAll } from "../queue/transportContract.js"
import { startService } from "../support/ChildProcess.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"

const region = "acme-east"

describe("examples/probe", () => {
  it.live("takes a job of its region from Redis and publishes the check's result", () =>
    Effect.gen(function*() {
      const { prefix, redis } = yield* redisPrefix
      const target = yield* httpServer((_, response) => response.writeHead(204).end())
      const probe = yield* Effect.acquireRelease(
        Effect.sync(() =>
          startService("examples/probe/main.ts", {
            ACME_REDIS_URL: redisUrl,
            ACME_STREAM_PREFIX: prefix,
            ACME_REGION: region,
            ACME_PROBE_NAME: "example-probe"
          })
        ),
        (service) =>
          Effect.promise(async () => {
            service.child.kill("SIGTERM")
            await service.exited
          })
      )
      // The probe joins its region's group, then sends its first heartbeat, which creates the
      // results stream: from then on a job published for the region reaches it.
      yield* eventually(
        Effect.promise(() => redis.exists(`${prefix}results:${region}`)),
        (exists) => exists === 1,
        30_000
      ).pipe(Effect.tapError(() => Effect.logError(probe.output())))

      const transport = yield* RedisJobTransport.make({ url: redisUrl, prefix })
      const ingest = yield* transport.resultConsumer("example-test")
      const job = CheckJob.forRun({
        monitorId: "acme-site",
        type: "http",
        url: `${target.url}/`,
        timeoutMs: 5_000,
        expectedStatusCode: 204,
        intervalSeconds: 60,
        regions: [region]
      }, Date.now())
      yield* transport.publishJobs([job])

      const [report] = (yield* readAll(ingest, 1)).map((delivery) => delivery.value)
      expect(report && !isMissed(report)).toBe(true)
      expect(report).toMatchObject({ jobId: job.id, monitorId: "acme-site", region, probe: "example-probe", ok: true })
    }).pipe(Effect.scoped))
})
