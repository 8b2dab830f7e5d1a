/**
 * Delivery of events to webhooks with retries: what the dispatcher calls. It hands each new
 * event to `enqueue` (once the event is committed) and calls `deliverDue` whenever it wakes;
 * the schedule lives in the database, so a restart loses no retry.
 */
import { Clock, Duration, Effect, Option, Schema } from "effect"
import { AppConfig } from "../../Config.js"
import { NotificationEvent } from "../../domain/NotificationEvent.js"
import type { WebhookDelivery } from "../../domain/Webhook.js"
import { WebhookDeliveriesRepo } from "../../persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../persistence/WebhooksRepo.js"
import { OrganizationProfile } from "../Organization.js"
import { buildDeliveryRequest } from "./DeliveryRequest.js"
import { nextAttemptAt } from "./RetrySchedule.js"
import { DeliveryTimeout, WebhookSender } from "./WebhookSender.js"

/**
 * How long a claim keeps a delivery from other dispatchers: longer than any attempt (the
 * receiver's time-out plus the bookkeeping), short enough that the deliveries a killed
 * dispatcher had in flight go out again soon.
 */
const claimLease = Effect.map(DeliveryTimeout, (timeout) => Duration.sum(timeout, Duration.seconds(5)))

const encodeEvent = Schema.encodeSync(NotificationEvent)
const decodeEvent = Schema.decodeUnknown(NotificationEvent)

export class WebhookDeliveries extends Effect.Service<WebhookDeliveries>()("WebhookDeliveries", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* WebhooksRepo
    const deliveries = yield* WebhookDeliveriesRepo
    const organization = yield* OrganizationProfile
    const sender = yield* WebhookSender
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /**
     * Makes attempt number `delivery.attempts + 1` and records it. Only the request can be
     * interrupted (shutdown): then nothing is recorded and the claim's lease brings it back.
     * Database work is never cut short (that can stall the embedded PGlite's shared session).
     */
    const attempt = (delivery: WebhookDelivery) =>
      Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        const webhook = yield* webhooks.findById(delivery.webhookId)
        const event = yield* decodeEvent(delivery.event).pipe(Effect.orDie)
        const profile = yield* organization.get()
        const startedAt = yield* now
        // A deleted webhook took its deliveries with it; a disabled one receives nothing.
        if (Option.isNone(webhook)) return Option.none<WebhookDelivery>()
        if (!webhook.value.isActive) return yield* deliveries.cancel(delivery, "Webhook disabled before delivery")
        const result = yield* restore(sender.send(buildDeliveryRequest({
          target: webhook.value,
          event,
          sender: { name: profile.name, url: config.publicUrl },
          deliveryId: delivery.id,
          timestamp: Math.floor(startedAt.getTime() / 1000)
        })))
        const finishedAt = yield* now
        const retryAt = result.success ? null : Option.getOrNull(nextAttemptAt(delivery.attempts + 1, finishedAt))
        return Option.some(yield* deliveries.recordAttempt(delivery, result, finishedAt, retryAt))
      })).pipe(Effect.withSpan("WebhookDeliveries.attempt", { attributes: { delivery: delivery.id } }))

    /** Claims up to `limit` due deliveries, oldest first, for one lease. */
    const claimDue = (limit: number) =>
      Effect.gen(function*() {
        return yield* deliveries.claimDue(yield* now, limit, yield* claimLease)
      })

    return {
      /** Creates the deliveries of a committed event for every webhook that should receive it. */
      enqueue: (event: NotificationEvent) =>
        Effect.gen(function*() {
          const recipients = yield* webhooks.findRecipients(event.event, event.componentIds)
          return yield* deliveries.enqueue(
            { id: event.id, event: event.event, encoded: encodeEvent(event) },
            recipients.map((webhook) => webhook.id),
            yield* now
          )
        }),

      /** Attempts every due delivery (up to `limit`, concurrently) and returns what was attempted. */
      deliverDue: (limit = 50) =>
        Effect.gen(function*() {
          const due = yield* claimDue(limit)
          // One broken delivery (or the database going away mid-batch) must not stop the others;
          // an unrecorded attempt is due again when its claim lease runs out.
          const outcomes = yield* Effect.forEach(
            due,
            (delivery) =>
              attempt(delivery).pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logError(`Webhook delivery ${delivery.id} could not be attempted`, cause).pipe(
                    Effect.as(Option.none<WebhookDelivery>())
                  )
                )
              ),
            { concurrency: 10 }
          )
          return outcomes.flatMap(Option.toArray)
        }),

      claimDue,
      attempt
    } as const
  }),
  dependencies: [WebhooksRepo.Default, WebhookDeliveriesRepo.Default, OrganizationProfile.Default, WebhookSender.Default]
}) {}
