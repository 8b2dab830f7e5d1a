/**
 * Deliveries of events to webhooks and the log of their attempts: the operations the
 * dispatcher runs. Times come from the caller (the Effect Clock), so schedules are testable.
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"

import type { EventName } from "../domain/NotificationEvent.js"
import { toggleOf } from "../domain/NotificationEvent.js"
import type { PageRequest } from "../domain/Page.js"
import type { AttemptResult, WebhookId } from "../domain/Webhook.js"
import { DeliveryAttempt, WebhookDelivery, WebhookType } from "../domain/Webhook.js"
import { isForeignKeyViolation, orUnavailable } from "./DatabaseErrors.js"
import { clipError, dueIds, leaseEnd, statusAfter } from "./DeliveryQueueSql.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"
import { receivesEvent } from "./WebhooksRepo.js"

/** `returning` keeps no order: attempts start in the order the deliveries became due. */
const byDueTime = (a: DeliveryRow, b: DeliveryRow) =>
  (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || a.sequence - b.sequence

/** What an attempt needs of its webhook, read with the claim (columns `target_*`). */
const ClaimTarget = Schema.Struct({
  targetUrl: Schema.String,
  targetType: WebhookType,
  targetSecret: Schema.NullOr(Schema.String),
  targetActive: Schema.Boolean
})

/** A delivery's row as plain data: what an attempt needs and its outcome is recorded against. */
export type DeliveryRow = Schema.Struct.Type<typeof WebhookDelivery.fields>

/** A claimed delivery with its webhook's address, format, secret and state at claim time. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRow
  /** When the claim's lease runs out: then another dispatcher may claim the delivery. */
  readonly claimedUntil: Date
  readonly target: {
    readonly url: string
    readonly type: WebhookType
    readonly secret: string | null
    readonly isActive: boolean
  }
}

/** A delivery `enqueueMany` created, with its webhook; `claimed`: created claimed for the caller. */
export interface EnqueuedDelivery {
  readonly id: string
  readonly eventId: string
  readonly webhookId: WebhookId
  readonly sequence: number
  readonly claimed: boolean
  readonly targetUrl: string
  readonly targetType: WebhookType
  readonly targetSecret: string | null
}
/** As the statement returns it: bigint sequence as text, ids untyped. */
type EnqueuedRow = Omit<EnqueuedDelivery, "webhookId" | "sequence"> & {
  readonly webhookId: string
  readonly sequence: string
}

/** One attempt to record: attempt number `delivery.attempts + 1`. */
export interface AttemptOutcome {
  readonly delivery: DeliveryRow
  readonly result: AttemptResult
  readonly attemptedAt: Date
  /** When to try again after a failure; null: no retry left (or a success). */
  readonly retryAt: Date | null
}

const statusOf = (outcome: AttemptOutcome) => statusAfter("delivered", outcome.result.success, outcome.retryAt)

/** A delivery as recording `outcome` leaves it (the columns recordAttempts sets). */
export const afterAttempt = (outcome: AttemptOutcome): WebhookDelivery =>
  new WebhookDelivery({
    ...outcome.delivery,
    status: statusOf(outcome),
    attempts: outcome.delivery.attempts + 1,
    nextAttemptAt: outcome.result.success ? null : outcome.retryAt,
    lastStatusCode: outcome.result.statusCode,
    lastError: clipError(outcome.result.error)
  }, { disableChecks: true })

/**
 * The webhooks' counters after a batch of outcomes, applied in the batch's order as one
 * recordAttempt after another would: a delivery that ends delivered resets consecutiveFailures,
 * one that ends failed counts against it with its error; retries still pending change nothing.
 */
const counterChanges = (outcomes: ReadonlyArray<AttemptOutcome>) => {
  const changes = new Map<
    string,
    { id: string; reset: boolean; failures: number; failed: boolean; lastError: string | null }
  >()
  for (const outcome of outcomes) {
    const status = statusOf(outcome)
    if (status === "pending") continue
    const id = outcome.delivery.webhookId
    const change = changes.get(id) ?? { id, reset: false, failures: 0, failed: false, lastError: null }
    if (status === "delivered") {
      change.reset = true
      change.failures = 0
    } else {
      change.failures += 1
      change.failed = true
      change.lastError = clipError(outcome.result.error)
    }
    changes.set(id, change)
  }
  // In id order: two dispatchers updating the same webhooks take their rows in the same order.
  return [...changes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** A webhook's attempts, newest first. */
const attemptsInOrder: Keyset = {
  list: "webhook-deliveries",
  keys: [
    { sql: "attempted_at", type: "timestamptz", descending: true },
    { sql: "attempt", type: "integer", descending: true },
    { sql: "id", type: "text", descending: true }
  ]
}

export class WebhookDeliveriesRepo extends Context.Service<WebhookDeliveriesRepo>()("WebhookDeliveriesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const deliveries = rowsOf(WebhookDelivery)
    const attempts = rowsOf(DeliveryAttempt)
    const decodeClaimed = Schema.decodeUnknownEffect(
      Schema.Array(Schema.Struct({ ...WebhookDelivery.fields, ...ClaimTarget.fields }))
    )

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
              on conflict (webhook_id, event_id) do nothing
              returning *`),

      /**
       * `enqueue` for many events in one statement (a hand-over pass), each to every webhook
       * that receives it (`receivesEvent`): the deliveries are created in the order of
       * `events`, then of the webhooks' creation. The first `claim.limit` of them are created
       * claimed until `claim.until` (the caller attempts them itself, with no claim round trip),
       * the others due at `dueAt`. Returns the new deliveries, in order, with their webhooks'
       * address, format and secret as the statement saw them.
       */
      enqueueMany: (
        events: ReadonlyArray<{
          readonly id: string
          readonly event: EventName
          readonly encoded: unknown
          readonly componentIds: ReadonlyArray<string>
        }>,
        dueAt: Date,
        claim: { readonly limit: number; readonly until: Date } = { limit: 0, until: dueAt }
      ) => {
        const items = events.map((event) => ({ ...event, toggle: toggleOf(event.event) }))
        return items.length === 0 ? Effect.succeed([]) : orUnavailable(sql<EnqueuedRow>`
          with e as (
            select item ->> 'id' as id, item ->> 'event' as event, item -> 'encoded' as encoded,
                   item ->> 'toggle' as toggle, item -> 'componentIds' as component_ids, i
            from jsonb_array_elements(${JSON.stringify(items)}::jsonb) with ordinality as x (item, i)
          ), d as (
            select e.id, e.event, e.encoded, w.id as webhook_id,
                   row_number() over (order by e.i, w.created_at, w.id) as n
            from e join webhooks w on ${receivesEvent(sql, sql`e.toggle`, sql`e.component_ids`)}
          ), created as (
            insert into webhook_deliveries (event_id, event_name, event, webhook_id, next_attempt_at)
            select id, event, encoded, webhook_id,
                   case when n <= ${claim.limit} then ${claim.until}::timestamptz else ${dueAt}::timestamptz end
            from d order by n
            on conflict (webhook_id, event_id) do nothing
            returning id, event_id, webhook_id, sequence, next_attempt_at
          )
          select c.id, c.event_id, c.webhook_id, c.sequence::text, c.next_attempt_at <> ${dueAt}::timestamptz as claimed,
                 w.url as target_url, w.type as target_type, w.secret as target_secret
          from created c join webhooks w on w.id = c.webhook_id`).pipe(
          Effect.map((rows): ReadonlyArray<EnqueuedDelivery> =>
            rows
              .map((row) => ({ ...row, webhookId: row.webhookId as WebhookId, sequence: Number(row.sequence) }))
              .toSorted((a, b) => a.sequence - b.sequence)
          )
        )
      },

      /**
       * Claims up to `limit` pending deliveries due at `now` and pushes them `lease` ahead, so
       * concurrent dispatchers skip them and a dispatcher that dies mid-attempt only delays them.
       * The same statement reads what the attempts need of their webhooks (a delivery's webhook
       * always exists: deleting a webhook deletes its deliveries).
       */
      claimDue: (now: Date, limit: number, lease: Duration.Duration) => {
        const claimedUntil = leaseEnd(now, lease)
        return orUnavailable(
          Effect.flatMap(
            sql`
              update webhook_deliveries d
              set next_attempt_at = ${claimedUntil}, updated_at = now()
              from webhooks w
              where w.id = d.webhook_id and d.id in (${dueIds(sql, "webhook_deliveries", now, limit)})
              returning d.*, w.url as target_url, w.type as target_type, w.secret as target_secret,
                        w.is_active as target_active`,
            decodeClaimed
          )
        ).pipe(Effect.map((rows) =>
          rows
            .map(({ targetActive, targetSecret, targetType, targetUrl, ...fields }): ClaimedDelivery => ({
              delivery: fields,
              claimedUntil,
              target: { url: targetUrl, type: targetType, secret: targetSecret, isActive: targetActive }
            }))
            .toSorted((a, b) => byDueTime(a.delivery, b.delivery))
        ))
      },

      findById: (id: string) => deliveries.first(sql`select * from webhook_deliveries where id = ${id}`),

      /**
       * Records attempt number `delivery.attempts + 1` with its result. A success delivers it and
       * resets the webhook's consecutiveFailures; a failure with a `retryAt` stays pending until
       * then; a failure without one fails the delivery and counts against the webhook with its error.
       */
      recordAttempt: (delivery: DeliveryRow, result: AttemptResult, attemptedAt: Date, retryAt: Date | null) => {
        const attempt = delivery.attempts + 1
        const status = statusAfter("delivered", result.success, retryAt)
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

      /**
       * Records a batch of attempts in one statement, as recordAttempt would one after the other
       * (each outcome's delivery at most once per batch). Returns the ids of the deliveries it
       * updated; an outcome whose delivery no longer exists (its webhook was deleted) is left
       * out. The new state of each is what it wrote (`afterAttempt`), so rows (with their
       * events) are not read back and decoded.
       */
      recordAttempts: (outcomes: ReadonlyArray<AttemptOutcome>) => {
        if (outcomes.length === 0) return Effect.succeed(new Set<string>() as ReadonlySet<string>)
        const rows = outcomes.map((outcome) => ({
          id: outcome.delivery.id,
          attempt: outcome.delivery.attempts + 1,
          status: statusOf(outcome),
          success: outcome.result.success,
          status_code: outcome.result.statusCode,
          error: clipError(outcome.result.error),
          duration_ms: outcome.result.durationMs,
          attempted_at: outcome.attemptedAt.toISOString(),
          next_attempt_at: outcome.result.success ? null : outcome.retryAt?.toISOString() ?? null
        }))
        const counters = counterChanges(outcomes).map((change) => ({
          id: change.id,
          reset: change.reset,
          failures: change.failures,
          failed: change.failed,
          last_error: change.lastError
        }))
        return orUnavailable(sql<{ id: string }>`
          with input as (
            select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as i (
              id text, attempt integer, status text, success boolean, status_code integer, error text,
              duration_ms integer, attempted_at timestamptz, next_attempt_at timestamptz)
          ),
          -- Deliveries locked in id order before the webhooks' counters, as a webhook's delete locks them.
          locked as (
            select d.id from webhook_deliveries d where d.id in (select id from input) order by d.id for update
          ),
          updated as (
            update webhook_deliveries d
            set status = i.status, attempts = i.attempt, next_attempt_at = i.next_attempt_at,
                last_status_code = i.status_code, last_error = i.error, updated_at = now()
            from input i join locked l on l.id = i.id
            where d.id = i.id
            returning d.id, d.webhook_id, d.event_id, d.event_name
          ),
          logged as (
            insert into webhook_delivery_attempts
              (webhook_id, delivery_id, event_id, event, attempt, success, status_code, error, duration_ms, attempted_at)
            select u.webhook_id, u.id, u.event_id, u.event_name, i.attempt, i.success, i.status_code, i.error,
                   i.duration_ms, i.attempted_at
            from updated u join input i on i.id = u.id
          ),
          counted as (
            update webhooks w
            set consecutive_failures = case when c.reset then c.failures else w.consecutive_failures + c.failures end,
                last_error = case when c.failed then c.last_error else w.last_error end,
                updated_at = now()
            from jsonb_to_recordset(${JSON.stringify(counters)}::jsonb) as c (
              id text, reset boolean, failures integer, failed boolean, last_error text)
            -- A success on a webhook with no failures changes nothing: its row is left alone.
            where w.id = c.id and (c.failed or w.consecutive_failures <> 0)
          )
          select id from updated`).pipe(
          Effect.map((updated): ReadonlySet<string> => new Set(updated.map((row) => row.id)))
        )
      },

      /** Ends a pending delivery without an attempt (its webhook was disabled); no counter changes. */
      cancel: (delivery: DeliveryRow, reason: string) =>
        deliveries.first(sql`
          update webhook_deliveries
          set status = 'failed', next_attempt_at = null, last_error = ${reason}, updated_at = now()
          where id = ${delivery.id} and status = 'pending'
          returning *`),

      /** Logs a test send; it changes neither deliveries nor the webhook's counters. */
      recordTestAttempt: (webhookId: WebhookId, event: EventName, result: AttemptResult, attemptedAt: Date) =>
        orUnavailable(
          sql.withTransaction(sql`
          insert into webhook_delivery_attempts
            (webhook_id, event, test, attempt, success, status_code, error, duration_ms, attempted_at)
          values (${webhookId}, ${event}, true, 1, ${result.success}, ${result.statusCode},
                  ${clipError(result.error)}, ${result.durationMs}, ${attemptedAt})`).pipe(
            // The webhook was deleted while its test ran (up to the 10 s time-out): nothing to log it
            // under. In the caller's transaction the insert is a savepoint, so the rest of it goes on.
            Effect.catchIf(isForeignKeyViolation, () => Effect.void)
          )
        ),

      /** A page of a webhook's attempts, newest first. */
      attemptsPage: (webhookId: WebhookId, page: PageRequest) =>
        readPage(
          sql,
          attemptsInOrder,
          page,
          (p) =>
            sql`
              select id, delivery_id, event_id, event, test, attempt, success, status_code, error, duration_ms,
                     attempted_at, ${p.pageKey}
              from webhook_delivery_attempts
              where webhook_id = ${webhookId} and ${p.after}
              ${p.orderBy} ${p.limit}`,
          attempts.all
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
