/**
 * The HTTP request that delivers one event to one webhook: body in the webhook's format and,
 * for `generic`, the signature headers. Pure, so a retry with the same delivery id sends the
 * same body and the same `webhook-id`.
 */
import type { NotificationEvent, Sender } from "../../../domain/NotificationEvent.js"
import type { WebhookType } from "../../../domain/Webhook.js"
import { renderBody } from "./Payload.js"
import { serviceSignature, standardWebhookSignature, standardWebhooksKey } from "./Signing.js"

export const userAgent = "StatusPageService-Webhooks/1.0"

export interface DeliveryTarget {
  readonly url: string
  readonly type: WebhookType
  /** Set for `generic` webhooks only. */
  readonly secret: string | null
}

export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export const buildDeliveryRequest = (options: {
  readonly target: DeliveryTarget
  readonly event: NotificationEvent
  readonly sender: Sender
  /** Stable across the retries of one (event, webhook) delivery. */
  readonly deliveryId: string
  /** When this attempt is sent, in unix seconds. */
  readonly timestamp: number
  /** `renderBody(target.type, event, sender)` when the caller has it already (one event fanned out renders it once). */
  readonly body?: string
}): DeliveryRequest => {
  const { deliveryId, event, sender, target, timestamp } = options
  const body = options.body ?? renderBody(target.type, event, sender)
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": userAgent,
    "x-service-event": event.event,
    "x-service-delivery": deliveryId
  }
  if (target.type === "generic" && target.secret !== null) {
    headers["x-service-signature"] = serviceSignature(target.secret, body)
    headers["webhook-id"] = deliveryId
    headers["webhook-timestamp"] = String(timestamp)
    headers["webhook-signature"] = standardWebhookSignature(
      standardWebhooksKey(target.secret),
      deliveryId,
      timestamp,
      body
    )
  }
  return { url: target.url, headers, body }
}
