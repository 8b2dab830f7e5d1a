/**
 * Deliveries of events to webhooks and the log of their attempts: the operations the
 * dispatcher runs. Times come from the caller (the Effect Clock), so schedules are testable.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import type { EventName } from "../domain/NotificationEvent.js"
import { DeliveryAttempt, WebhookDelivery } from "../domain/Webhook.js"
import type { DeliveryResult, WebhookId } from "../domain/Webhook.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

/** `returning` keeps no order: attempts start in the order the deliveries became due. */
const byDueTime = (a: WebhookDelivery, b: WebhookDelivery) =>
  (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || a.sequence - b.sequence

/** Error texts are kept short in the database. */
const clipError = (error: string | null) => (error === null ? null : error.slice(0, 1000))

export class WebhookDeliveriesRepo extends Effect.Service<WebhookDeliveriesRepo>()("WebhookDeliveriesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const deliveries = rowsOf(WebhookDelivery)
    const attempts = rowsOf(DeliveryAttempt)

    return {
      /**
       * Creates one pending delivery per webhook for the event, due at `dueAt`. Idempotent: an
       * event handed over twice (a dispatcher crash before it marked the outbox row) keeps its
       * deliveries and their ids.
       */
      enqueue: (
        event: { readonly id: string; readonly event: EventName; readonly encoded: unknown },
        webhookIds: ReadonlyArray<WebhookId>,
        dueAt: Date
      ) =>
        webhookIds.length === 0
          ? Effect.succeed([] as ReadonlyArray<WebhookDelivery>)
          : deliveries.all(sql`
              insert into webhook_deliveries (event_id, event_name, event, webhook_id, next_attempt_at)
              select ${event.id}, ${event.event}, ${JSON.stringify(event.encoded)}::jsonb, webhook_id, ${dueAt}
              from jsonb_array_elements_text(${JSON.stringify(webhookIds)}::jsonb) as ids (webhook_id)
              on conflict (event_id, webhook_id) do nothing
              returning *`),

      /**
       * Claims up to `limit` pending deliveries due at `now` and pushes them `lease` ahead, so
       * concurrent dispatchers skip them and a dispatcher that dies mid-attempt only delays them.
       */
      claimDue: (now: Date, limit: number, lease: Duration.Duration) =>
        deliveries.all(sql`
          update webhook_deliveries
          set next_attempt_at = ${new Date(now.getTime() + Duration.toMillis(lease))}, updated_at = now()
          where id in (
            select id from webhook_deliveries
            where status = 'pending' and next_attempt_at <= ${now}
            order by next_attempt_at, sequence
            limit ${limit}
            for update skip locked)
          returning *`).pipe(Effect.map((claimed) => claimed.toSorted(byDueTime))),

      findById: (id: string) => deliveries.first(sql`select * from webhook_deliveries where id = ${id}`),

      /**
       * Records attempt number `delivery.attempts + 1` with its result. A success delivers it and
       * resets the webhook's consecutiveFailures; a failure with a `retryAt` stays pending until
       * then; a failure without one fails the delivery and counts against the webhook with its error.
       */
      recordAttempt: (delivery: WebhookDelivery, result: DeliveryResult, attemptedAt: Date, retryAt: Date | null) => {
        const attempt = delivery.attempts + 1
        const status = result.success ? "delivered" : retryAt !== null ? "pending" : "failed"
        const error = clipError(result.error)
        return Effect.gen(function*() {
          yield* sql`
            insert into webhook_delivery_attempts
              (webhook_id, delivery_id, event_id, event, attempt, success, status_code, error, duration_ms, attempted_at)
            values (${delivery.webhookId}, ${delivery.id}, ${delivery.eventId}, ${delivery.eventName}, ${attempt},
                    ${result.success}, ${result.statusCode}, ${error}, ${result.durationMs}, ${attemptedAt})`
          const updated = yield* deliveries.one(sql`
            update webhook_deliveries
            set status = ${status}, attempts = ${attempt}, next_attempt_at = ${result.success ? null : retryAt},
                last_status_code = ${result.statusCode}, last_error = ${error}, updated_at = now()
            where id = ${delivery.id}
            returning *`)
          if (status === "delivered") {
            yield* sql`update webhooks set consecutive_failures = 0, updated_at = now() where id = ${delivery.webhookId}`
          } else if (status === "failed") {
            yield* sql`
              update webhooks set consecutive_failures = consecutive_failures + 1, last_error = ${error}, updated_at = now()
              where id = ${delivery.webhookId}`
          }
          return updated
        }).pipe(sql.withTransaction, orUnavailable)
      },

      /** Ends a pending delivery without an attempt (its webhook was disabled); no counter changes. */
      cancel: (delivery: WebhookDelivery, reason: string) =>
        deliveries.first(sql`
          update webhook_deliveries
          set status = 'failed', next_attempt_at = null, last_error = ${reason}, updated_at = now()
          where id = ${delivery.id} and status = 'pending'
          returning *`),

      /** Logs a test send; it changes neither deliveries nor the webhook's counters. */
      recordTestAttempt: (webhookId: WebhookId, event: EventName, result: DeliveryResult, attemptedAt: Date) =>
        orUnavailable(sql`
          insert into webhook_delivery_attempts
            (webhook_id, event, test, attempt, success, status_code, error, duration_ms, attempted_at)
          values (${webhookId}, ${event}, true, 1, ${result.success}, ${result.statusCode},
                  ${clipError(result.error)}, ${result.durationMs}, ${attemptedAt})`),

      /** The most recent attempts for a webhook, newest first. */
      recentAttempts: (webhookId: WebhookId, limit: number) =>
        attempts.all(sql`
          select id, delivery_id, event_id, event, test, attempt, success, status_code, error, duration_ms, attempted_at
          from webhook_delivery_attempts
          where webhook_id = ${webhookId}
          order by attempted_at desc, attempt desc
          limit ${limit}`)
    } as const
  })
}) {}
