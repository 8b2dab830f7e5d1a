/** The admin side of webhooks: configuration, the test send and the delivery log. */
import { randomUUID } from "node:crypto"

import { Clock, Context, DateTime, Effect, Layer } from "effect"

import { Conflict, NotFound, orNotFound } from "../../../domain/Errors.js"
import type { IncidentEvent } from "../../../domain/NotificationEvent.js"
import type { PageRequest } from "../../../domain/Page.js"
import type { CreateWebhook, UpdateWebhook, WebhookId } from "../../../domain/Webhook.js"
import { CreatedWebhook } from "../../../domain/Webhook.js"
import { WebhookDeliveriesRepo } from "../../../persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../../persistence/WebhooksRepo.js"
import { AppConfig } from "../../../runtime/Config.js"
import { OrganizationProfile } from "../../catalog/OrganizationProfile.js"
import { buildDeliveryRequest } from "./DeliveryRequest.js"
import { generateSecret } from "./Signing.js"
import { WebhookSender } from "./WebhookSender.js"

/** The sample of POST /admin/webhooks/:id/test: an `incident.created` marked `data.test = true`. */
const sampleIncident = (organization: string, at: DateTime.Utc): IncidentEvent => ({
  id: `test_${randomUUID()}`,
  event: "incident.created",
  occurredAt: at,
  componentIds: [],
  data: {
    id: "test",
    title: "Test notification",
    status: "investigating",
    severity: "minor",
    componentIds: [],
    message: `This is a test notification from ${organization}. No action is needed.`,
    test: true
  }
})

export class Webhooks extends Context.Service<Webhooks>()("Webhooks", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const repo = yield* WebhooksRepo
    const deliveries = yield* WebhookDeliveriesRepo
    const organization = yield* OrganizationProfile
    const sender = yield* WebhookSender
    const get = (id: WebhookId) => repo.findById(id).pipe(orNotFound("Webhook", id))

    return {
      list: Effect.fn("Webhooks.list")((page: PageRequest) => repo.findPage(page)),
      get: Effect.fn("Webhooks.get")(get),

      /** Only `generic` webhooks get a secret; this response is the only one that shows it. */
      create: Effect.fn("Webhooks.create")((input: CreateWebhook) => {
        const secret = input.type === "generic" ? generateSecret() : null
        return repo.insert(input, secret).pipe(
          Effect.map((webhook) => new CreatedWebhook({ ...webhook, secret }))
        )
      }),

      update: Effect.fn("Webhooks.update")(function*(id: WebhookId, changes: UpdateWebhook) {
        if (changes.type !== undefined && (yield* get(id)).type !== changes.type) {
          return yield* new Conflict({
            message: "A webhook's type cannot be changed: create a new webhook of the other type"
          })
        }
        return yield* repo.update(id, changes).pipe(orNotFound("Webhook", id))
      }),

      toggle: Effect.fn("Webhooks.toggle")((id: WebhookId) => repo.toggle(id).pipe(orNotFound("Webhook", id))),

      remove: Effect.fn("Webhooks.remove")((id: WebhookId) =>
        repo.remove(id).pipe(
          Effect.filterOrFail((deleted) => deleted, () => NotFound.of("Webhook", id)),
          Effect.asVoid
        )
      ),

      /** Sends the sample once, without retries, whether or not the webhook is active. */
      test: Effect.fn("Webhooks.test")(function*(id: WebhookId) {
        const webhook = yield* get(id)
        const profile = yield* organization.get()
        const now = yield* Clock.currentTimeMillis
        const event = sampleIncident(profile.name, DateTime.makeUnsafe(now))
        const result = yield* sender.send(buildDeliveryRequest({
          target: webhook,
          event,
          sender: { name: profile.name, url: config.publicUrl },
          deliveryId: event.id,
          timestamp: Math.floor(now / 1000)
        }))
        yield* deliveries.recordTestAttempt(webhook.id, event.event, result, new Date(now))
        return result
      }),

      deliveries: Effect.fn("Webhooks.deliveries")((id: WebhookId, page: PageRequest) =>
        get(id).pipe(Effect.andThen(deliveries.attemptsPage(id, page)))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      WebhooksRepo.layer,
      WebhookDeliveriesRepo.layer,
      OrganizationProfile.layer,
      WebhookSender.layer
    ])
  )
}
