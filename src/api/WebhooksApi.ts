import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import {
  CreatedWebhook,
  CreateWebhook,
  deliveriesPageBounds,
  DeliveryAttempt,
  DeliveryResult,
  UpdateWebhook,
  Webhook,
  WebhookId
} from "../domain/Webhook.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const WebhookPath = Schema.Struct({ id: WebhookId })

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(Webhook.json) })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "List webhooks",
        "Every webhook, oldest first, with its toggles, `consecutiveFailures` and `lastError`. The secret is " +
          "never listed.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: WebhookPath, success: Webhook.json, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Read a webhook",
        "One webhook as the list shows it (never its secret), with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateWebhook,
      success: CreatedWebhook.pipe(HttpApiSchema.status(201)),
      error: BadRequest
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create a webhook",
        "Requires `name` (1–200 characters), `url` (an absolute http(s) URL) and `type`: `chat_a` (Slack), " +
          "`chat_b` (Discord), `chat_c` (Microsoft Teams Workflows), `generic`, `pagerduty` (Events API v2) or " +
          "`opsgenie` (Alert API). Defaults: `isActive` true, `notifyOnIncident`, `notifyOnMaintenance` and " +
          "`notifyOnComponentChange` true and `notifyOnMonitor` false, `componentIds` null " +
          "(every component; with a list, only events naming at least one of those components are delivered).",
        "`pagerduty` and `opsgenie` require `integrationKey` (PagerDuty: the 32-character integration key; " +
          "Opsgenie: the API integration's key), which no answer shows; they default to `notifyOnMonitor` true and " +
          "the other toggles false, and `notifyOnMaintenance` or `notifyOnComponentChange` true is **400**: they " +
          "page on incident and monitor events only. `integrationKey` on another type is **400**.",
        "Answers **201**. A `generic` webhook gets a `secret` (64 lowercase hex characters) that signs its " +
          "deliveries; this response is the only one that shows it. The other types get `secret: null`."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: WebhookPath,
      payload: UpdateWebhook,
      success: Webhook.json,
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Update a webhook",
        "A partial update with the rules of creation. The type cannot change: a body naming another `type` is " +
          "**409** `Conflict` and changes nothing (its own type is accepted). The secret stays as it is and is " +
          "not shown; an on-call webhook's `integrationKey` is replaced when one is sent. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", { params: WebhookPath, success: HttpApiSchema.NoContent, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete a webhook",
        "Answers **204**, with its deliveries and their log; an unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.patch("toggle", "/:id/toggle", { params: WebhookPath, success: Webhook.json, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Pause or resume a webhook",
        "Flips `isActive` and answers the webhook. An inactive webhook receives no events, including those " +
          "waiting for delivery when it was paused. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("test", "/:id/test", { params: WebhookPath, success: DeliveryResult, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Send a test delivery",
        "Sends an `incident.created` sample with `data.test: true` once, without retries, also to an inactive " +
          "webhook, signed and formatted like a real delivery. Answers `{ success, statusCode, durationMs, " +
          "error }` (a non-2xx answer, a redirect, a connection error or no answer within 10 s is a failure; the " +
          "answer is still 200). The attempt appears in the delivery log and leaves `consecutiveFailures` and " +
          "`lastError` alone. To `pagerduty` and `opsgenie` the sample is an alert of its own at the lowest " +
          "severity (`info`, `P5`), to be closed in the tool. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/:id/deliveries", {
      query: pageQueryFields(deliveriesPageBounds),
      params: WebhookPath,
      success: Schema.Array(DeliveryAttempt.json),
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Recent delivery attempts",
        "The latest attempts, newest first: `event`, `test`, `attempt`, `success`, `statusCode`, `error`, " +
          "`durationMs`, `deliveryId` (the same on every retry, null for a test send) and `attemptedAt`. An " +
          "unknown id is 404.",
        pagedList(deliveriesPageBounds)
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/webhooks")
  .annotateMerge(groupDocs(
    "Webhooks to chat tools, on-call tools (PagerDuty, Opsgenie) and generic endpoints (admin; an API key or a " +
      "session is required, else 401).",
    "Webhooks are an operator channel: they receive the events of private components, incidents and " +
      "maintenance windows too; a `componentIds` filter narrows them.",
    "The dispatcher delivers every outbox event to each matching active webhook at least once: a `POST` with " +
      "`X-Service-Event` and `X-Service-Delivery` (the delivery id, the same on every retry). `generic` " +
      "deliveries are `{ event, timestamp, organization: { name, url }, data }`, signed with `X-Service-Signature: " +
      "sha256=…` (HMAC-SHA256 of the body keyed with the secret string) and the Standard Webhooks headers " +
      "`webhook-id`, `webhook-timestamp` and `webhook-signature`. `pagerduty` deliveries are Events API v2 " +
      "events (`trigger` on `monitor.down`/`monitor.degraded`, `resolve` on `monitor.up`, one `dedup_key` per " +
      "monitor); `opsgenie` deliveries create an alert, or close it by alias, with `Authorization: GenieKey`.",
    "A delivery fails on a non-2xx answer, a redirect (never followed), a connection error (an address of " +
      "`OUTBOUND_DENY`, by default link-local and cloud metadata, is never connected to) or no answer within " +
      "10 s, and is retried after 5 s, 10 s and 20 s. After the fourth failed attempt `consecutiveFailures` " +
      "grows by one and `lastError` is set; a success resets `consecutiveFailures` to 0."
  ))
{}
