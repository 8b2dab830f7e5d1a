/**
 * Two schedulers on one database: one is active, the other stands by, and takes over when the
 * active one stops. Real PostgreSQL advisory locks, real time.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"

import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const Stack = InProcessJobTransport.layer().pipe(Layer.provideMerge(LiveTestServer()))

layer(Stack, { excludeTestServices: true, timeout: "60 seconds" })("scheduler fail-over", (it) => {
  it.effect(
    "a standby scheduler takes over when the active one stops, and loses no slot",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const transport = yield* JobTransport
        // Region `local`: the one the in-process transport knows, where jobs for every region go.
        const jobs = yield* transport.jobConsumer("local", "reader")
        const component = yield* client.components.create({ payload: { name: "Failover" } })
        const monitor = yield* client.monitors.create({
          payload: { componentId: component.id, type: "tcp", url: "127.0.0.1:9", intervalSeconds: 10 }
        })
        const context = yield* Effect.context<never>()
        const start = Effect.gen(function*() {
          const scope = yield* Scope.make()
          yield* Layer.buildWithScope(Layer.fresh(CheckScheduler), scope).pipe(Effect.provide(context))
          return scope
        })
        /** The monitor's jobs read within `millis` (until the first, unless `all`). */
        const readFor = (millis: number, all = false) =>
          Effect.gen(function*() {
            const seen: Array<{ readonly id: string; readonly scheduledAt: number }> = []
            const deadline = Date.now() + millis
            while (Date.now() < deadline && (all || seen.length === 0)) {
              const batch = yield* jobs.read(100, 500)
              yield* jobs.ack(batch.map((d) => d.id))
              for (const { value } of batch) {
                if (value.monitorId === monitor.id) seen.push({ id: value.id, scheduledAt: value.scheduledAt })
              }
            }
            return seen
          })

        // The standby starts once the active one publishes, so the one stopped below is the active one.
        const active = yield* start
        const first = yield* readFor(12_000)
        expect(first.length).toBeGreaterThan(0)
        const standby = yield* start
        // Only one of them publishes: the standby adds no second copy of a slot's job.
        const published = [...first, ...(yield* readFor(3_000, true))]
        expect(new Set(published.map((job) => job.id)).size).toBe(published.length)

        yield* Scope.close(active, Exit.void)
        const onItsWay = yield* readFor(300)
        const lastBefore = Math.max(...[...published, ...onItsWay].map((job) => job.scheduledAt))
        const [next] = yield* readFor(30_000)
        expect(next).toBeDefined()
        // No slot is lost: the standby starts at the latest slot, which is the active's last one
        // again (the same job id: ingest stores its result once) or, if one came due meanwhile,
        // the one after it. Taking over a slot later would skip one: it looks for the lock every
        // 2 s, well within the 10 s between slots.
        expect([lastBefore, lastBefore + 10_000]).toContain(next!.scheduledAt)
        yield* Scope.close(standby, Exit.void)
      }),
    60_000
  )
})
