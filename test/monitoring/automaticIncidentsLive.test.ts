/**
 * An automatic incident end to end, on real time, as `npm start` runs without REDIS_URL: the
 * check scheduler, the in-process probe, ingest and the automation's clock, against a real local
 * HTTP target that goes down, recovers, flaps and recovers for good.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { InProcessProbeLive } from "../../probes/ProbeAgent.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IncidentAutomationClock } from "../../src/workers/IncidentAutomationClock.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { eventually } from "../support/Eventually.js"
import { SwitchableTarget, SwitchableTargetLive } from "../support/SwitchableTarget.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const Fleet = Layer.mergeAll(CheckScheduler, IngestConsumer, InProcessProbeLive, IncidentAutomationClock).pipe(
  Layer.provide(InProcessJobTransport.layer()),
  Layer.provideMerge(LiveTestServer()),
  Layer.merge(SwitchableTargetLive)
)

layer(Fleet, { excludeTestServices: true, timeout: "150 seconds" })("automatic incidents, live", (it) => {
  it.effect(
    "a real outage opens an incident, recovery and a flap update it, the wait resolves it",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const target = yield* SwitchableTarget
        const component = yield* client.components.create({ payload: { name: "Storefront" } })
        target.answer(503)
        const monitor = yield* client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: target.url,
            intervalSeconds: 10,
            timeoutMs: 2000,
            failureThreshold: 1,
            incidentPolicy: "publish",
            // Longer than an interval, so the flap comes before the incident is resolved.
            resolveAfterSeconds: 20
          }
        })
        /** The monitor's incident as the public reads it. */
        const publicIncident = Effect.map(
          client.status.incidents({ query: {} }),
          (page) => page.filter((incident) => incident.componentIds.includes(component.id))
        )
        const statusIs = (status: string) => <A extends { status: string }>(found: ReadonlyArray<A>) =>
          found[0]?.status === status

        const [opened] = yield* eventually(publicIncident, statusIs("investigating"), 20_000)
        expect(opened).toMatchObject({ title: "Storefront is down", severity: "major" })
        expect(opened!.message).toBe(
          "Our checks fail from 1 of 1 region: local (HTTP 503). We are investigating."
        )

        target.answer(200)
        yield* eventually(publicIncident, statusIs("monitoring"), 20_000)

        target.answer(503)
        const flapped = yield* eventually(publicIncident, statusIs("investigating"), 20_000)
        expect(flapped.map((incident) => incident.id)).toEqual([opened!.id])

        target.answer(200)
        yield* eventually(publicIncident, statusIs("monitoring"), 20_000)
        const [resolved] = yield* eventually(publicIncident, statusIs("resolved"), 40_000)
        const detail = yield* client.status.incident({ params: { id: resolved!.id } })
        expect(detail.updates.map((update) => update.status)).toEqual([
          "investigating",
          "monitoring",
          "investigating",
          "monitoring",
          "resolved"
        ])
        const [admin] = (yield* client.incidents.list({ query: {} })).filter((incident) => incident.id === opened!.id)
        expect(admin).toMatchObject({ source: "monitor", monitorId: monitor.id, automation: "active" })
      }),
    150_000
  )
})
