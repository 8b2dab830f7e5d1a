import { Schema, SchemaTransformation } from "effect"
import { Model } from "effect/schema"

import { HttpUrl, Name, NumberFromString, pattern, Text } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { EventName } from "./NotificationEvent.js"

export const WebhookType = Schema.Literals(["chat_a", "chat_b", "chat_c", "generic", "pagerduty", "opsgenie"])
export type WebhookType = typeof WebhookType.Type

/** The on-call formats: they page on incident and monitor events only, with the key the operator gives. */
export const onCallTypes: ReadonlyArray<WebhookType> = ["pagerduty", "opsgenie"]
export const isOnCallType = (type: WebhookType): boolean => onCallTypes.includes(type)

/**
 * The key an on-call webhook authenticates with: PagerDuty's integration key (Events API v2's
 * `routing_key`, 32 characters) or an Opsgenie API integration's key. Write-only: no answer shows it.
 */
export const IntegrationKey = Text(200).check(
  pattern(/^[\x21-\x7e]+$/, "must be a key without spaces or control characters")
).annotate({ description: "Write-only: never shown in an answer." })

/** The names people know the chat formats by, accepted on input; answers keep the canonical ones. */
const webhookTypeAliases = { slack: "chat_a", discord: "chat_b", teams: "chat_c" } as const

/** A webhook's `type` in a request: the canonical name or its alias (`slack`, `discord`, `teams`). */
export const WebhookTypeInput = Schema.Literals([...WebhookType.literals, "slack", "discord", "teams"]).pipe(
  Schema.decodeTo(
    WebhookType,
    SchemaTransformation.transform({
      decode: (type) =>
        type in webhookTypeAliases ? webhookTypeAliases[type as keyof typeof webhookTypeAliases] : type as WebhookType,
      encode: (type) => type
    })
  )
).annotate({
  description:
    "`chat_a` (Slack), `chat_b` (Discord), `chat_c` (Microsoft Teams), `generic`, `pagerduty` (Events API v2) " +
    "or `opsgenie` (Alert API); `slack`, `discord` and " +
    "`teams` are accepted for the chat formats and answered as their canonical names."
})

/** Any text without NUL may be asked for (PostgreSQL refuses NUL); unknown ids are 404. */
export const WebhookId = Text(1000).pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

export const WebhookName = Name(200)
/** Component ids to filter on (at most 1000, each a short id); null means every component. */
export const ComponentFilter = Schema.NullOr(Schema.Array(Text(100)).check(Schema.isMaxLength(1000)))

export class Webhook extends Model.Class<Webhook>("Webhook")({
  id: Generated(WebhookId),
  name: WebhookName,
  url: HttpUrl,
  type: WebhookType,
  isActive: Schema.Boolean,
  /** Kept out of every JSON variant: the creation response adds it once (CreatedWebhook). */
  secret: Model.Sensitive(Schema.NullOr(Schema.String)),
  notifyOnIncident: Schema.Boolean,
  notifyOnMaintenance: Schema.Boolean,
  notifyOnComponentChange: Schema.Boolean,
  /** monitor.down / degraded / up (docs/notifications.md, "Monitor events"). */
  notifyOnMonitor: Schema.Boolean,
  componentIds: ComponentFilter,
  consecutiveFailures: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `Webhook.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Webhook.json" })
}

/** The creation response: the webhook with its secret, the only time the secret is shown. */
export class CreatedWebhook extends Class<CreatedWebhook>("CreatedWebhook")({
  ...Webhook.json.fields,
  secret: Schema.NullOr(Schema.String)
}) {}

/**
 * Body of POST /admin/webhooks. Defaults: active, all three toggles on, no component filter.
 * The secret is generated, never chosen.
 */
export class CreateWebhook extends Class<CreateWebhook>("CreateWebhook")({
  name: WebhookName,
  url: HttpUrl,
  type: WebhookTypeInput,
  isActive: Schema.optionalKey(Schema.Boolean),
  notifyOnIncident: Schema.optionalKey(Schema.Boolean),
  notifyOnMaintenance: Schema.optionalKey(Schema.Boolean),
  notifyOnComponentChange: Schema.optionalKey(Schema.Boolean),
  /** Default: on for `pagerduty` and `opsgenie`, off for the others. */
  notifyOnMonitor: Schema.optionalKey(Schema.Boolean),
  componentIds: Schema.optionalKey(ComponentFilter),
  /** Required for `pagerduty` and `opsgenie`, refused for the others. */
  integrationKey: Schema.optionalKey(IntegrationKey)
}) {}

/**
 * Body of PUT /admin/webhooks/:id: a partial update. The type (and so the secret) is fixed at
 * creation: `type` is accepted only when it is the webhook's own (409 otherwise), so a client
 * that tries to change it hears so instead of a 200 that changed nothing.
 */
export class UpdateWebhook extends Class<UpdateWebhook>("UpdateWebhook")({
  name: Schema.optionalKey(WebhookName),
  type: Schema.optionalKey(WebhookTypeInput),
  url: Schema.optionalKey(HttpUrl),
  isActive: Schema.optionalKey(Schema.Boolean),
  notifyOnIncident: Schema.optionalKey(Schema.Boolean),
  notifyOnMaintenance: Schema.optionalKey(Schema.Boolean),
  notifyOnComponentChange: Schema.optionalKey(Schema.Boolean),
  notifyOnMonitor: Schema.optionalKey(Schema.Boolean),
  componentIds: Schema.optionalKey(ComponentFilter),
  /** Replaces an on-call webhook's key (refused for the other types). */
  integrationKey: Schema.optionalKey(IntegrationKey)
}) {}

/** What one delivery attempt came to (the answer of POST /admin/webhooks/:id/test). */
export class DeliveryResult extends Class<DeliveryResult>("DeliveryResult")({
  success: Schema.Boolean,
  statusCode: Schema.NullOr(Schema.Int),
  durationMs: Schema.Int,
  error: Schema.NullOr(Schema.String)
}) {}

/** A DeliveryResult as plain data: what the dispatcher's attempts (thousands a second) pass around. */
export type AttemptResult = Schema.Struct.Type<typeof DeliveryResult.fields>

/** One recorded attempt, as GET /admin/webhooks/:id/deliveries lists it (newest first). */
export class DeliveryAttempt extends Model.Class<DeliveryAttempt>("DeliveryAttempt")({
  id: Schema.String,
  /** The delivery (stable across retries, the `webhook-id` header); null for a test send. */
  deliveryId: Schema.NullOr(Schema.String),
  eventId: Schema.NullOr(Schema.String),
  event: EventName,
  test: Schema.Boolean,
  attempt: Schema.Int,
  success: Schema.Boolean,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Int,
  attemptedAt: Model.DateTimeInsertFromDate
}) {
  /** The JSON variant, named `DeliveryAttempt.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "DeliveryAttempt.json" })
}

export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed"])

/** A delivery of one event to one webhook, across its attempts (row of webhook_deliveries). */
export class WebhookDelivery extends Class<WebhookDelivery>("WebhookDelivery")({
  /** The delivery id: `webhook-id` and `X-Service-Delivery`, the same on every retry. */
  id: Schema.String,
  eventId: Schema.String,
  eventName: EventName,
  /** The event as NotificationEvent encodes it. */
  event: Schema.Unknown,
  webhookId: WebhookId,
  status: DeliveryStatus,
  /** Attempts made so far. */
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.Date),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  /** Enqueueing order: deliveries due at the same time go out in this order. */
  sequence: NumberFromString
}) {}

/** How many attempts a page of GET /admin/webhooks/:id/deliveries holds. */
export const deliveriesPageBounds = { fallback: 50, max: 500 } as const
