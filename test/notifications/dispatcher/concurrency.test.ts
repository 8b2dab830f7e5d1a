/**
 * The dispatcher in real time: a receiver that hangs holds up nobody else, and two
 * dispatcher instances (each with its own connections, as in two processes) on one database
 * deliver every (event, webhook) once.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"

import { Database } from "../../../src/persistence/Database.js"
import { Dispatcher } from "../../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../../support/Eventually.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { TestDatabaseUrl } from "../../support/TestDatabase.js"
import { LiveTestServer, sendJson } from "../../support/TestServer.js"

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    )
  )
const createComponent = (name: string) =>
  Effect.map(post("/api/v1/admin/components", { name }), (r) => r.body.id as string)

layer(Dispatcher.pipe(Layer.provideMerge(LiveTestServer())), { excludeTestServices: true })(
  "dispatcher in real time",
  (it) => {
    it.effect("a receiver that hangs does not delay deliveries to another", () =>
      Effect.gen(function*() {
        const cmp = yield* createComponent("Hang")
        // Never answers: each request stays open until the dispatcher gives up on it (10 s).
        let stuckEnded = 0
        const stuck = yield* receiver((_request, response) => {
          response.once("close", () => {
            stuckEnded++
          })
        })
        const healthy = yield* receiver(answerWith(200))
        yield* post("/api/v1/admin/webhooks", { name: "stuck", url: stuck.url, type: "generic", componentIds: [cmp] })
        yield* post("/api/v1/admin/webhooks", {
          name: "healthy",
          url: healthy.url,
          type: "chat_b",
          componentIds: [cmp]
        })

        for (let i = 0; i < 5; i++) {
          yield* post("/api/v1/admin/incidents", { title: `Hang ${i}`, message: "m", componentIds: [cmp] })
        }
        yield* eventually(Effect.sync(() => healthy.received.length), (n) => n === 5, 20_000)
        expect(healthy.received).toHaveLength(5)
        // All five arrived while the stuck receiver's requests were still open: none waited for them.
        expect(stuck.received.length).toBeGreaterThanOrEqual(1)
        expect(stuckEnded).toBe(0)
        expect(healthy.received.map((request) => JSON.parse(request.body).embeds[0].title).sort()).toEqual(
          [0, 1, 2, 3, 4].map((i) => `New incident: Hang ${i}`)
        )
      }))

    it.effect("two dispatchers on one database deliver each event to each webhook once", () =>
      Effect.gen(function*() {
        const url = yield* TestDatabaseUrl
        // A second instance: its own layer build, so its own pool, StateChanges (LISTEN) and fibers.
        yield* Layer.build(Layer.fresh(Dispatcher.pipe(
          Layer.provide(Database),
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url })))
        )))
        const cmp = yield* createComponent("Twice")
        const targets = [yield* receiver(answerWith(200)), yield* receiver(answerWith(200))]
        for (const target of targets) {
          yield* post("/api/v1/admin/webhooks", {
            name: "twice",
            url: target.url,
            type: "generic",
            componentIds: [cmp]
          })
        }
        yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          (i) => post("/api/v1/admin/incidents", { title: `Twice ${i}`, message: "m", componentIds: [cmp] }),
          { concurrency: 5 }
        )
        for (const target of targets) {
          yield* eventually(Effect.sync(() => target.received.length), (n) => n >= 30, 10_000)
        }
        // Time for any duplicate to show up (the poll runs every second).
        yield* realPause(2_500)
        for (const target of targets) {
          const ids = target.received.map((request) => request.headers["webhook-id"])
          expect(ids).toHaveLength(30)
          expect(new Set(ids).size).toBe(30)
          expect(new Set(target.received.map((request) => JSON.parse(request.body).data.title)).size).toBe(30)
        }
      }))
  }
)
