/**
 * The HTTP request that delivers one event to one webhook: body in the webhook's format and,
 * for `generic`, the signature headers; for the on-call formats, their key where each vendor
 * takes it (and Opsgenie's close action as the address). Pure, so a retry with the same
 * delivery id sends the same body and the same `webhook-id`.
 */
import type { NotificationEvent, Sender } from "../../../domain/NotificationEvent.js"
import type { WebhookType } from "../../../domain/Webhook.js"
import { opsgenieAuthorization, opsgenieUrl } from "./formats/Opsgenie.js"
import { withRoutingKey } from "./formats/PagerDuty.js"
import { renderBody } from "./Payload.js"
import { serviceSignature, standardWebhookSignature, standardWebhooksKey } from "./Signing.js"

export const userAgent = "StatusPageService-Webhooks/1.0"

export interface DeliveryTarget {
  readonly url: string
  readonly type: WebhookType
  /** A `generic` webhook's signing secret, or an on-call webhook's key; null for the chat types. */
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
  const rendered = options.body ?? renderBody(target.type, event, sender)
  // PagerDuty takes its key in the body, Opsgenie in a header and the alert's alias in the URL.
  const body = target.type === "pagerduty" && target.secret !== null
    ? withRoutingKey(rendered, target.secret)
    : rendered
  const url = target.type === "opsgenie" ? opsgenieUrl(target.url, event) : target.url
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": userAgent,
    "x-service-event": event.event,
    "x-service-delivery": deliveryId
  }
  if (target.type === "opsgenie" && target.secret !== null) headers.authorization = opsgenieAuthorization(target.secret)
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
  return { url, headers, body }
}
