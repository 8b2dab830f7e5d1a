/**
 * The stream gauges, read at scrape time from each transport: a region's jobs stream with
 * jobs published and some read but not acknowledged shows its length and pending entries
 * in the Prometheus text.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { StreamGauges } from "../../src/queue/StreamGauges.js"
import { MetricsExporter } from "../../src/runtime/MetricsExporter.js"
import { announce, jobsFor, readAll } from "../queue/transportContract.js"
import { parseMetrics } from "../support/Prometheus.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"

const gauge = (text: string, name: string, region: string) =>
  Number(
    parseMetrics(text).find((family) => family.name === name)?.metrics.find((m) =>
      m.labels?.stream === "jobs" && m.labels?.region === region
    )?.value
  )

const transports = {
  redis: Layer.unwrap(
    Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix }))
  ),
  "in-process": InProcessJobTransport.layer()
}

for (const [name, transport] of Object.entries(transports)) {
  const Stack = Layer.merge(StreamGauges, MetricsExporter.layer("status-page")).pipe(
    Layer.provideMerge(Layer.orDie(transport))
  )
  layer(Stack, { timeout: "30 seconds" })(`stream gauges (${name})`, (it) => {
    it.effect("report a region's jobs stream: its length and the entries read but not acknowledged", () =>
      Effect.gen(function*() {
        const queue = yield* JobTransport
        const region = `r${Math.floor(Math.random() * 1e6)}`
        yield* announce(region)
        const consumer = yield* queue.jobConsumer(region, "p1")
        yield* queue.publishJobs(jobsFor(3, "m", [region]))
        yield* readAll(consumer, 2, 2)
        const text = yield* (yield* MetricsExporter).scrape()
        expect(gauge(text, "status_page_stream_pending", region)).toBe(2)
        // Redis counts every entry kept (XLEN); in process, those not read yet.
        expect(gauge(text, "status_page_stream_length", region)).toBe(name === "redis" ? 3 : 1)
      }).pipe(Effect.orDie))
  })
}
