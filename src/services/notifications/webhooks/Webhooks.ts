/** The admin side of webhooks: configuration, the test send and the delivery log. */
import { randomUUID } from "node:crypto"

import { Clock, Context, DateTime, Effect, Layer } from "effect"

import { Conflict, orNotFound } from "../../../domain/Errors.js"
import type { IncidentEvent } from "../../../domain/NotificationEvent.js"
import type { PageRequest } from "../../../domain/Page.js"
import type { CreateWebhook, UpdateWebhook, Webhook, WebhookId } from "../../../domain/Webhook.js"
import { CreatedWebhook } from "../../../domain/Webhook.js"
import { WebhookDeliveriesRepo } from "../../../persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../../persistence/WebhooksRepo.js"
import { AppConfig } from "../../../runtime/Config.js"
import { AuditTrail, changesBetween } from "../../audit/AuditTrail.js"
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
    const audit = yield* AuditTrail
    const transaction = audit.transaction
    const get = (id: WebhookId) => repo.findById(id).pipe(orNotFound("Webhook", id))

    /**
     * The audit entry of a change of `webhook` from `before` to `after`. Its secret and its URL show
     * as `(secret)`: a chat webhook's URL is itself the credential that posts to the channel.
     */
    const record = (webhook: Webhook, before: Webhook | undefined, after: Webhook | undefined) =>
      audit.record({
        target: { type: "webhook", id: webhook.id, name: webhook.name },
        changes: changesBetween(before, after, ["url"])
      })

    return {
      list: Effect.fn("Webhooks.list")((page: PageRequest) => repo.findPage(page)),
      get: Effect.fn("Webhooks.get")(get),

      /** Only `generic` webhooks get a secret; this response is the only one that shows it. */
      create: Effect.fn("Webhooks.create")((input: CreateWebhook) => {
        const secret = input.type === "generic" ? generateSecret() : null
        return transaction(Effect.gen(function*() {
          const webhook = yield* repo.insert(input, secret)
          yield* record(webhook, undefined, webhook)
          return new CreatedWebhook({ ...webhook, secret })
        }))
      }),

      update: Effect.fn("Webhooks.update")((id: WebhookId, changes: UpdateWebhook) =>
        transaction(Effect.gen(function*() {
          const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Webhook", id))
          if (changes.type !== undefined && before.type !== changes.type) {
            return yield* new Conflict({
              message: "A webhook's type cannot be changed: create a new webhook of the other type"
            })
          }
          const after = yield* repo.update(id, changes).pipe(orNotFound("Webhook", id))
          yield* record(after, before, after)
          return after
        }))
      ),

      toggle: Effect.fn("Webhooks.toggle")((id: WebhookId) =>
        transaction(Effect.gen(function*() {
          const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Webhook", id))
          const after = yield* repo.toggle(id).pipe(orNotFound("Webhook", id))
          yield* record(after, before, after)
          return after
        }))
      ),

      remove: Effect.fn("Webhooks.remove")((id: WebhookId) =>
        transaction(Effect.gen(function*() {
          const removed = yield* repo.remove(id).pipe(orNotFound("Webhook", id))
          yield* record(removed, removed, undefined)
        }))
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
        // The sample was sent: its entry is written even when the webhook was deleted meanwhile.
        yield* transaction(Effect.andThen(
          deliveries.recordTestAttempt(webhook.id, event.event, result, new Date(now)),
          audit.record({ target: { type: "webhook", id: webhook.id, name: webhook.name } })
        ))
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
      WebhookSender.layer,
      AuditTrail.layer
    ])
  )
}
