/**
 * The fleet end to end in one process, as `npm start` runs it without REDIS_URL: the check
 * scheduler, the in-process probe and ingest, against a real local HTTP target, on real time.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { InProcessProbeLive } from "../../probes/ProbeAgent.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { eventually } from "../support/Eventually.js"
import { SwitchableTarget, SwitchableTargetLive } from "../support/SwitchableTarget.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const Fleet = Layer.mergeAll(CheckScheduler, IngestConsumer, InProcessProbeLive).pipe(
  Layer.provide(InProcessJobTransport.layer()),
  Layer.provideMerge(LiveTestServer()),
  Layer.merge(SwitchableTargetLive)
)

layer(Fleet, { excludeTestServices: true, timeout: "60 seconds" })("fleet in one process", (it) => {
  it.effect("checks a new monitor at once, takes its component down and brings it back", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const target = yield* SwitchableTarget
      const component = yield* client.components.create({ payload: { name: "Shop" } })
      target.answer(503)
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: target.url,
          intervalSeconds: 10,
          timeoutMs: 2000,
          failureThreshold: 1
        }
      })
      const statusOf = Effect.map(client.status.components(), (list) => list.find((c) => c.id === component.id)?.status)

      // The scheduler reloads monitors every 5 s and runs a new one at its current slot.
      expect(yield* eventually(statusOf, (s) => s === "major_outage", 15_000)).toBe("major_outage")
      const [checked] = (yield* client.monitors.list({ query: {} })).filter((m) => m.id === monitor.id)
      expect(checked).toMatchObject({
        state: "down",
        regionStates: [{ region: "local", ok: false, lastStatusCode: 503 }]
      })
      const results = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(results[0]).toMatchObject({ region: "local", ok: false, statusCode: 503, error: expect.any(String) })

      target.answer(200)
      expect(yield* eventually(statusOf, (s) => s === "operational", 20_000)).toBe("operational")
    }), 60_000)
})
