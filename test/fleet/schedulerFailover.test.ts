/**
 * Two schedulers on one database: one is active, the other stands by, and takes over within
 * seconds when the active one stops. Real PostgreSQL advisory locks, real time.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { JobTransport } from "../../src/queue/JobTransport.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { CheckScheduler } from "../../src/services/CheckScheduler.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const Stack = InProcessJobTransport.layer().pipe(Layer.provideMerge(LiveTestServer()))

layer(Stack, { excludeTestServices: true, timeout: "60 seconds" })("scheduler fail-over", (it) => {
  it.scoped("a standby scheduler takes over within 10 s of the active one stopping", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const transport = yield* JobTransport
      const jobs = yield* transport.jobConsumer("failover-test", "reader")
      const component = yield* client.components.create({ payload: { name: "Failover" } })
      const monitor = yield* client.monitors.create({
        payload: { componentId: component.id, type: "tcp", url: "127.0.0.1:9", intervalSeconds: 10 }
      })
      const context = yield* Effect.context<never>()
      const start = Effect.gen(function*() {
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(CheckScheduler, scope).pipe(Effect.provide(context))
        return scope
      })
      /** Job ids for the monitor read within `millis` (until the first, unless `all`). */
      const readFor = (millis: number, all = false) =>
        Effect.gen(function*() {
          const seen: Array<string> = []
          const deadline = Date.now() + millis
          while (Date.now() < deadline && (all || seen.length === 0)) {
            const batch = yield* jobs.read(100, 500)
            yield* jobs.ack(batch.map((d) => d.id))
            seen.push(...batch.filter((d) => d.value.monitorId === monitor.id).map((d) => d.value.id))
          }
          return seen
        })

      const active = yield* start
      const standby = yield* start
      const first = yield* readFor(10_000)
      expect(first.length).toBeGreaterThan(0)
      // Only one of them publishes: the standby adds no second copy of a slot's job.
      const published = [...first, ...(yield* readFor(3_000, true))]
      expect(new Set(published).size).toBe(published.length)

      yield* Scope.close(active, Exit.void)
      const stoppedAt = Date.now()
      yield* readFor(300) // what was already on its way
      const afterTakeOver = yield* readFor(10_000)
      expect(afterTakeOver.length).toBeGreaterThan(0)
      expect(Date.now() - stoppedAt).toBeLessThan(10_000)
      yield* Scope.close(standby, Exit.void)
    }), 60_000)
})
