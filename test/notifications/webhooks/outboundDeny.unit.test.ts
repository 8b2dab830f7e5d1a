/**
 * OUTBOUND_DENY in webhook deliveries: a receiver at a denied address, written as the host or
 * resolved from a name, is never connected to; the delivery fails with the reason. The loopback
 * address 127.0.0.2 stands in for the metadata service: nothing here leaves the machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"

import { buildDeliveryRequest } from "../../../src/services/notifications/webhooks/DeliveryRequest.js"
import { WebhookSender } from "../../../src/services/notifications/webhooks/WebhookSender.js"
import { httpServer } from "../../support/Servers.js"
import { sampleEvents, sender } from "../SampleEvents.js"

/** A receiver answering 204 on `host`, counting the connections it accepted. */
const receiverOn = (host: string) => httpServer((_request, response) => response.writeHead(204).end(), { host })

const deliverTo = (url: string) =>
  Effect.flatMap(WebhookSender, (webhooks) =>
    webhooks.send(buildDeliveryRequest({
      target: { url, type: "generic", secret: "00".repeat(32) },
      event: sampleEvents[0]!,
      sender,
      deliveryId: "dlv_deny",
      timestamp: 1_772_359_200
    })))

/** A WebhookSender configured as the service configures it, with OUTBOUND_DENY set to `deny`. */
const withDeny = (deny: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(WebhookSender.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ OUTBOUND_DENY: deny }))
  )

describe("WebhookSender and OUTBOUND_DENY", () => {
  it.live("a delivery to a denied address fails with the reason, over http and https, and never connects", () =>
    Effect.gen(function*() {
      const target = yield* receiverOn("127.0.0.2")
      for (const scheme of ["http", "https"]) {
        const result = yield* deliverTo(`${scheme}://127.0.0.2:${target.port}/hook`)
        expect(result, scheme).toMatchObject({
          success: false,
          statusCode: null,
          error: "Connection failed: connection to 127.0.0.2 refused by OUTBOUND_DENY"
        })
      }
      expect(target.connections()).toBe(0)
    }).pipe(withDeny("127.0.0.2/32"), Effect.scoped))

  it.live("a receiver's name that resolves to a denied address is refused after DNS", () =>
    Effect.gen(function*() {
      const target = yield* receiverOn("127.0.0.1")
      const result = yield* deliverTo(`http://localhost:${target.port}/hook`)
      expect(result).toMatchObject({ success: false, statusCode: null })
      expect(result.error).toMatch(
        /^Connection failed: connection to localhost \((127\.0\.0\.1|::1)\) refused by OUTBOUND_DENY$/
      )
      expect(target.connections()).toBe(0)
    }).pipe(withDeny("127.0.0.0/8, ::1/128"), Effect.scoped))

  it.live("with OUTBOUND_DENY=none the same receiver is delivered to", () =>
    Effect.gen(function*() {
      const target = yield* receiverOn("127.0.0.2")
      expect(yield* deliverTo(`http://127.0.0.2:${target.port}/hook`)).toMatchObject({ success: true, statusCode: 204 })
      expect(target.connections()).toBe(1)
    }).pipe(withDeny("none"), Effect.scoped))
})
