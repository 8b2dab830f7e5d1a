/**
 * Traces of webhook deliveries, exported over OTLP/HTTP to a receiver started by the test: with
 * tracing on, the dispatcher makes each attempt a client span naming the delivery and the
 * attempt number, never the webhook's URL (which may hold a secret); a failed attempt ends in
 * error, a delivered one does not.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"

import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually } from "../support/Eventually.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"
import { type OtlpSink, otlpSink, tracingTo } from "./tracingSink.js"

class Sink extends Context.Service<Sink, OtlpSink>()("test/Sink") {}

const Stack = Layer.unwrap(Effect.map(otlpSink, (sink) =>
  Dispatcher.pipe(
    Layer.provideMerge(LiveTestServer()),
    Layer.provide(tracingTo(sink, "status-page")),
    Layer.merge(Layer.succeed(Sink, sink))
  )))

const secret = "hook-secret-that-must-not-leak"

layer(Stack, { excludeTestServices: true, timeout: "60 seconds" })("delivery traces", (it) => {
  it.effect("each webhook attempt is a client span with the delivery id and attempt, no URL, in error when it failed", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const client = yield* ApiClient
      // One path delivered (204), the other refused (500); the failing one's URL carries a secret.
      const target = yield* receiver((request, response, raw) =>
        answerWith(request.path.startsWith("/hook/fail") ? 500 : 204)(request, response, raw)
      )
      const delivered = yield* client.webhooks.create({
        payload: { name: "delivered", url: `${target.url}/ok`, type: "generic" }
      })
      const failing = yield* client.webhooks.create({
        payload: { name: "failing", url: `${target.url}/fail?token=${secret}`, type: "generic" }
      })
      const component = yield* client.components.create({ payload: { name: "Traced" } })
      yield* client.components.setStatus({ params: { id: component.id }, payload: { status: "degraded" } })

      const attempts = yield* eventually(
        Effect.sync(() => sink.spans.filter((span) => span.name === "WebhookDeliveries.attempt")),
        (spans) =>
          spans.some((s) => s.attributes["webhook.id"] === delivered.id) &&
          spans.some((s) => s.attributes["webhook.id"] === failing.id),
        15_000
      )
      // The span ends with the request; its outcome is recorded by the next batch, a moment later.
      const deliveryOf = (id: typeof delivered.id) =>
        eventually(
          Effect.map(client.webhooks.deliveries({ params: { id }, query: {} }), (list) =>
            list.find((d) => d.attempt === 1)),
          (delivery) =>
            delivery !== undefined,
          15_000
        )
      const ok = attempts.find((span) => span.attributes["webhook.id"] === delivered.id)!
      const failed = attempts.find((span) => span.attributes["webhook.id"] === failing.id)!
      expect(ok).toMatchObject({
        service: "status-page",
        kind: 3, // client
        parentSpanId: undefined, // an attempt is a trace of its own
        attributes: {
          "webhook.delivery_id": (yield* deliveryOf(delivered.id))!.deliveryId,
          "webhook.attempt": 1,
          "webhook.type": "generic",
          "http.response.status_code": 204
        }
      })
      expect(ok.status.code).not.toBe(2)
      expect(failed).toMatchObject({
        kind: 3,
        attributes: {
          "webhook.delivery_id": (yield* deliveryOf(failing.id))!.deliveryId,
          "webhook.attempt": 1,
          "http.response.status_code": 500
        },
        status: { code: 2 } // error
      })
      // No URL in any attempt's attributes or status, so not the secret it holds either.
      for (const span of attempts) {
        expect(Object.keys(span.attributes).filter((key) => key.startsWith("url.") || key.includes("url")))
          .toEqual([])
        expect(JSON.stringify([span.attributes, span.status])).not.toContain(target.url.replace(/\/hook$/, ""))
        expect(JSON.stringify([span.attributes, span.status])).not.toContain(secret)
      }
    }))
})
