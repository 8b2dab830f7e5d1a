import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, NotFound } from "../domain/Errors.js"
import { Authentication } from "./Security.js"
import {
  CreatedWebhook,
  CreateWebhook,
  DeliveryAttempt,
  DeliveryResult,
  UpdateWebhook,
  Webhook,
  WebhookId
} from "../domain/Webhook.js"

const WebhookPath = Schema.Struct({ id: WebhookId })

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Webhook.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateWebhook)
      .addSuccess(CreatedWebhook, { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(WebhookPath)
      .setPayload(UpdateWebhook)
      .addSuccess(Webhook.json)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .setPath(WebhookPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("toggle", "/:id/toggle")
      .setPath(WebhookPath)
      .addSuccess(Webhook.json)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("test", "/:id/test")
      .setPath(WebhookPath)
      .addSuccess(DeliveryResult)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/:id/deliveries")
      .setPath(WebhookPath)
      .addSuccess(Schema.Array(DeliveryAttempt.json))
      .addError(NotFound)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/webhooks")
{}
