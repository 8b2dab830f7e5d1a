/**
 * Deliveries to real receivers on loopback: success, server error, redirect, time-out, reset,
 * kept-alive connections and answers with bodies.
 */
import { createHmac } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"

import { buildDeliveryRequest, userAgent } from "../../../src/services/notifications/webhooks/DeliveryRequest.js"
import { generateSecret } from "../../../src/services/notifications/webhooks/Signing.js"
import { DeliveryTimeout, WebhookSender } from "../../../src/services/notifications/webhooks/WebhookSender.js"
import { answerWith, hang, receiver, resetConnection } from "../../support/Receiver.js"
import { sampleEvents, sender } from "../SampleEvents.js"

const event = sampleEvents[0]!

const deliverTo = (url: string, type: "generic" | "chat_a" = "chat_a", secret: string | null = null) =>
  Effect.flatMap(WebhookSender, (webhooks) =>
    webhooks.send(buildDeliveryRequest({
      target: { url, type, secret },
      event,
      sender,
      deliveryId: "dlv_1",
      timestamp: 1_772_359_200
    })))

describe("WebhookSender", () => {
  it.live("succeeds on 2xx and sends the generic body signed, with its headers", () =>
    Effect.gen(function*() {
      const target = yield* receiver(answerWith(204))
      const secret = generateSecret()
      const result = yield* deliverTo(target.url, "generic", secret)
      expect(result).toMatchObject({ success: true, statusCode: 204, error: null })
      expect(result.durationMs).toBeGreaterThanOrEqual(0)

      const [request] = target.received
      expect(request!.method).toBe("POST")
      expect(JSON.parse(request!.body)).toMatchObject({ event: "incident.created", organization: sender })
      expect(request!.headers).toMatchObject({
        "content-type": "application/json",
        "user-agent": userAgent,
        "x-service-event": "incident.created",
        "webhook-id": "dlv_1",
        "webhook-timestamp": "1772359200"
      })
      const hex = createHmac("sha256", secret).update(request!.body).digest("hex")
      expect(request!.headers["x-service-signature"]).toBe(`sha256=${hex}`)
      const standard = createHmac("sha256", Buffer.from(secret, "hex"))
        .update(`dlv_1.1772359200.${request!.body}`)
        .digest("base64")
      expect(request!.headers["webhook-signature"]).toBe(`v1,${standard}`)
      // A receiver is a third party: no trace context goes out with the delivery.
      expect(request!.headers["traceparent"]).toBeUndefined()
      expect(request!.headers["b3"]).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("does not sign chat formats", () =>
    Effect.gen(function*() {
      const target = yield* receiver(answerWith(200))
      expect((yield* deliverTo(target.url)).success).toBe(true)
      expect(target.received[0]!.headers["x-service-signature"]).toBeUndefined()
      expect(JSON.parse(target.received[0]!.body).attachments).toHaveLength(1)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("fails on a 500 answer", () =>
    Effect.gen(function*() {
      const target = yield* receiver(answerWith(500))
      expect(yield* deliverTo(target.url)).toMatchObject({ success: false, statusCode: 500, error: "HTTP 500" })
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("fails on a redirect and does not follow it", () =>
    Effect.gen(function*() {
      const elsewhere = yield* receiver(answerWith(200))
      const target = yield* receiver(answerWith(301, { location: elsewhere.url }))
      const result = yield* deliverTo(target.url)
      expect(result).toMatchObject({ success: false, statusCode: 301 })
      // The Location is not echoed into the error.
      expect(result.error).toBe("HTTP 301: redirect (3xx) not followed")
      expect(elsewhere.received).toHaveLength(0)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("fails when the receiver does not answer within the time-out", () =>
    Effect.gen(function*() {
      // The contract's 10 s, which this test shortens so as not to wait for it.
      expect(Duration.toMillis(yield* DeliveryTimeout)).toBe(10_000)
      const target = yield* receiver(hang)
      const result = yield* deliverTo(target.url).pipe(Effect.provideService(DeliveryTimeout, Duration.millis(300)))
      expect(result).toMatchObject({ success: false, statusCode: null, error: "No answer within 300ms" })
      expect(result.durationMs).toBeGreaterThanOrEqual(290)
      expect(result.durationMs).toBeLessThan(5000)
      expect(target.received).toHaveLength(1)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("fails when the connection is reset or refused", () =>
    Effect.gen(function*() {
      const target = yield* receiver(resetConnection)
      const reset = yield* deliverTo(target.url)
      expect(reset).toMatchObject({ success: false, statusCode: null })
      expect(reset.error).toMatch(/^Connection failed: .*(ECONNRESET|socket hang up)/)

      // A port nothing listens on: bind one, close it, then deliver there.
      const gone = yield* receiver(answerWith(200))
      gone.close()
      const refused = yield* deliverTo(gone.url)
      expect(refused).toMatchObject({ success: false, statusCode: null })
      expect(refused.error).toMatch(/ECONNREFUSED/)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("keeps the connection to a receiver alive between deliveries", () =>
    Effect.gen(function*() {
      const ports: Array<number | undefined> = []
      const target = yield* receiver((request, response, raw) => {
        ports.push(raw.socket.remotePort)
        answerWith(200)(request, response, raw)
      })
      for (let i = 0; i < 3; i++) expect((yield* deliverTo(target.url)).success).toBe(true)
      expect(target.received).toHaveLength(3)
      expect(new Set(ports).size).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("delivers again on a new connection when the receiver closed the kept-alive one", () =>
    Effect.gen(function*() {
      // The second request (the first on the reused connection) finds it dropped.
      let requests = 0
      const target = yield* receiver((request, response, raw) =>
        ++requests === 2 ? raw.socket.resetAndDestroy() : answerWith(200)(request, response, raw)
      )
      expect((yield* deliverTo(target.url)).success).toBe(true)
      expect(yield* deliverTo(target.url)).toMatchObject({ success: true, statusCode: 200 })
      // The same request twice (same body, same delivery id), the second time answered.
      expect(target.received).toHaveLength(3)
      expect(target.received[2]!.body).toBe(target.received[1]!.body)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("a request cut short by the time-out on a kept-alive connection is not sent again", () =>
    Effect.gen(function*() {
      // The first request is answered; the second, on the same connection, never is.
      let requests = 0
      const target = yield* receiver((
        request,
        response,
        raw
      ) => (++requests === 1 ? answerWith(200)(request, response, raw) : undefined))
      expect((yield* deliverTo(target.url)).success).toBe(true)
      const result = yield* deliverTo(target.url).pipe(Effect.provideService(DeliveryTimeout, Duration.millis(300)))
      expect(result).toMatchObject({ success: false, error: "No answer within 300ms" })
      // Destroying it at the time-out resets the reused connection: that is not the receiver's doing.
      yield* Effect.sleep("300 millis")
      expect(target.received).toHaveLength(2)
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("an address the HTTP client refuses fails at once as a connection failure", () =>
    Effect.gen(function*() {
      for (const url of ["ftp://127.0.0.1/hook", "not a url"]) {
        const result = yield* deliverTo(url)
        expect(result, url).toMatchObject({ success: false, statusCode: null })
        expect(result.error, url).toMatch(/^Connection failed: /)
      }
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))

  it.live("goes by the status line: a large or unfinished answer body does not change the outcome", () =>
    Effect.gen(function*() {
      const large = yield* receiver((_, response) => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.end("x".repeat(1024 * 1024))
      })
      expect(yield* deliverTo(large.url)).toMatchObject({ success: true, statusCode: 200, error: null })

      const unfinished = yield* receiver((_, response) => {
        response.writeHead(502, { "content-type": "text/plain", "content-length": "100" })
        response.write("partial")
      })
      const result = yield* deliverTo(unfinished.url).pipe(Effect.provideService(DeliveryTimeout, Duration.millis(300)))
      expect(result).toMatchObject({ success: false, statusCode: 502, error: "HTTP 502" })
    }).pipe(Effect.scoped, Effect.provide(WebhookSender.layer)))
})
