/** The admin side of webhooks: configuration, the test send and the delivery log. */
import { randomUUID } from "node:crypto"

import { Clock, Context, DateTime, Effect, Layer } from "effect"

import { BadRequest, Conflict, type Issue, orNotFound } from "../../../domain/Errors.js"
import { targetHost } from "../../../domain/NetworkAddress.js"
import type { IncidentEvent } from "../../../domain/NotificationEvent.js"
import type { PageRequest } from "../../../domain/Page.js"
import type { CreateWebhook, UpdateWebhook, Webhook, WebhookId, WebhookType } from "../../../domain/Webhook.js"
import { CreatedWebhook, isOnCallType } from "../../../domain/Webhook.js"
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

/** PagerDuty refuses any other `routing_key` length (Events API v2). */
const pagerDutyKeyLength = 32

/**
 * The rules of the on-call fields that a schema cannot check alone, for a webhook of `type`: its
 * key (required for the on-call types on creation, refused for the others) and the toggles the
 * on-call types cannot have (they page on incident and monitor events only).
 */
const onCallIssues = (
  type: WebhookType,
  fields: Pick<CreateWebhook, "integrationKey" | "notifyOnMaintenance" | "notifyOnComponentChange">,
  creating: boolean
): Effect.Effect<void, BadRequest> => {
  const issues: Array<Issue> = []
  if (isOnCallType(type)) {
    if (creating && fields.integrationKey === undefined) {
      issues.push({ path: ["integrationKey"], message: `is required for ${type} webhooks` })
    }
    const key = fields.integrationKey
    if (type === "pagerduty" && key !== undefined && key.length !== pagerDutyKeyLength) {
      issues.push({
        path: ["integrationKey"],
        message: `must be the ${pagerDutyKeyLength}-character integration key of a PagerDuty Events API v2 integration`
      })
    }
    for (const toggle of ["notifyOnMaintenance", "notifyOnComponentChange"] as const) {
      if (fields[toggle] === true) {
        issues.push({
          path: [toggle],
          message: `must be false: ${type} webhooks page on incident and monitor events only`
        })
      }
    }
  } else if (fields.integrationKey !== undefined) {
    issues.push({ path: ["integrationKey"], message: "applies to pagerduty and opsgenie webhooks only" })
  }
  return issues.length === 0 ? Effect.void : Effect.fail(BadRequest.fromIssues(issues))
}

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

      /**
       * Only `generic` webhooks get a secret; this response is the only one that shows it. An
       * on-call webhook keeps the key it was given in the same column, and no answer shows it.
       */
      create: Effect.fn("Webhooks.create")(function*(input: CreateWebhook) {
        yield* onCallIssues(input.type, input, true)
        const secret = input.type === "generic" ? generateSecret() : null
        return yield* transaction(Effect.gen(function*() {
          const webhook = yield* repo.insert(input, secret ?? input.integrationKey ?? null)
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
          yield* onCallIssues(before.type, changes, false)
          // The key goes only to the host it was given for: a new host needs it given again.
          if (
            isOnCallType(before.type) && changes.url !== undefined && changes.integrationKey === undefined &&
            targetHost(changes.url) !== targetHost(before.url)
          ) {
            return yield* BadRequest.fromIssues([{
              path: ["integrationKey"],
              message:
                "give the key again with a URL of another host: a stored key is sent only to the host it was given for"
            }])
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
