/**
 * The `dispatcher` role: turns committed outbox events into webhook deliveries and subscriber
 * mail, and sends those. Three fibers:
 *
 * - the hand-over claims undispatched outbox events (oldest first, SKIP LOCKED, one short
 *   statement), enqueues each event's deliveries (one per matching active webhook) and mails
 *   (one per verified subscriber, incident and maintenance events only), then marks the events
 *   dispatched. Enqueueing is idempotent, so an event handed over twice (a crash between the
 *   two steps, a lease that ran out) keeps its delivery ids and is not sent twice;
 * - two work pumps send the due webhook deliveries and mails, each with a fixed number of
 *   slots, so a slow receiver holds one slot and never the others. Retries are due times in the
 *   database; claims are leases, so a dispatcher that dies only delays what it held. The
 *   hand-over creates the webhook deliveries it can start soon already claimed and hands them
 *   to the pump, so a fresh event goes out without a claim round trip.
 *
 * Wake-ups come from StateChanges (in process, and LISTEN/NOTIFY from other instances on a
 * PostgreSQL server); the pumps also look when a retry this process scheduled comes due (the
 * deliveries tell them). Otherwise each fiber looks every `idlePoll`, for what nobody told it of
 * (a lease of a dispatcher that died, another instance's retries): an idle dispatcher costs a
 * few statements every 10 s rather than three a second. Several instances may run at once.
 */
import { Duration, Effect, Layer, PubSub, Queue, Result } from "effect"

import type { NotificationEvent } from "../domain/NotificationEvent.js"
import type { OutboxRow } from "../persistence/OutboxRepo.js"
import { OutboxRepo } from "../persistence/OutboxRepo.js"
import { startDeliveryPump } from "../services/notifications/dispatcher/DeliveryQueue.js"
import { toNotificationEvent } from "../services/notifications/dispatcher/OutboxEvents.js"
import { effectWork } from "../services/notifications/dispatcher/WorkPump.js"
import { MailDeliveries } from "../services/notifications/mail/MailDeliveries.js"
import { WebhookDeliveries } from "../services/notifications/webhooks/WebhookDeliveries.js"
import { StateChanges } from "../services/StateChanges.js"

/** How long a fiber goes without looking for work it was not told of. */
const idlePoll = Duration.seconds(10)
/** While handed-over deliveries wait for a slot, how often due ones are claimed ahead of them (fairness). */
const pollInterval = Duration.seconds(1)
/** A hand-over that failed (the database away) is tried again this soon. */
const retryHandOver = Duration.seconds(1)
/** Outbox events claimed per pass. */
const handOverBatch = 100
/** A hand-over pass takes milliseconds; a claim older than this belongs to a dispatcher that died. */
const handOverLease = Duration.seconds(10)
/** Webhook requests in flight at once (each waits at most the 10 s time-out). */
const webhookSlots = 64
/**
 * Webhook deliveries handed to the pump claimed, waiting for a slot, at most: a second or so of
 * sending to healthy receivers, well within a claim's lease. Beyond it, deliveries are created
 * due and claimed from the database as slots free up.
 */
const handedOverDeliveries = 16 * webhookSlots
/** SMTP exchanges in flight at once. */
const mailSlots = 8

export const Dispatcher = Layer.effectDiscard(
  Effect.gen(function*() {
    const outbox = yield* OutboxRepo
    const webhooks = yield* WebhookDeliveries
    const mails = yield* MailDeliveries
    const changes = yield* StateChanges
    // A sliding queue of one: wake-ups that arrive while the hand-over works collapse into one more look.
    const outboxChanged = yield* Queue.sliding<void>(1)

    const notifications = yield* changes.subscribe
    yield* PubSub.take(notifications).pipe(
      Effect.andThen(Queue.offer(outboxChanged, undefined)),
      Effect.forever,
      Effect.forkScoped
    )

    // Each pump claims from its channel's queue, and is woken when a retry this process schedules comes due.
    const webhookPump = yield* startDeliveryPump(webhooks, {
      name: "dispatcher.webhooks",
      slots: webhookSlots,
      // The slot is a request in flight: it is free once the request is over and its outcome queued.
      start: webhooks.start,
      pollInterval,
      idlePoll
    })
    const mailPump = yield* startDeliveryPump(mails, {
      name: "dispatcher.mail",
      slots: mailSlots,
      start: yield* effectWork("dispatcher.mail", mails.attempt),
      pollInterval,
      idlePoll
    })

    /** The events of claimed rows; a row the formats cannot read is a bug to fix, not something a retry mends: logged and skipped. */
    const eventsOf = (rows: ReadonlyArray<OutboxRow>) =>
      Effect.gen(function*() {
        const events: Array<NotificationEvent> = []
        for (const row of rows) {
          yield* Result.match(toNotificationEvent(row), {
            onFailure: (error) =>
              Effect.logError(`Outbox event ${row.id} (${row.event}) cannot be converted; skipped`, error),
            onSuccess: (event) => Effect.sync(() => events.push(event))
          })
        }
        return events
      })

    /**
     * Hands over one batch of events, in creation order; returns how many it claimed (none if it
     * failed). Their
     * webhook deliveries are created by one statement, their mails by another, both idempotent.
     */
    const handOverPass = Effect.gen(function*() {
      const rows = yield* outbox.claimPending(handOverBatch, handOverLease)
      const events = yield* eventsOf(rows)
      const deliveries = yield* webhooks.enqueueMany(events, Math.max(0, handedOverDeliveries - webhookPump.waiting()))
      yield* webhookPump.handOver(deliveries.claimed)
      if (deliveries.created > deliveries.claimed.length) yield* webhookPump.wake
      if ((yield* mails.enqueueMany(events)) > 0) yield* mailPump.wake
      yield* outbox.markDispatched(rows.map((row) => row.id))
      if (rows.length > 0) yield* Effect.logDebug(`Handed over ${rows.length} events`)
      return rows.length
    }).pipe(
      Effect.withSpan("Dispatcher.handOver"),
      // Short database work: finish it rather than cut a query short at shutdown.
      Effect.uninterruptible,
      Effect.catchCause((cause) =>
        Effect.logWarning("Handing over outbox events failed; retrying", cause).pipe(Effect.as(undefined))
      )
    )

    const handOverLoop = handOverPass.pipe(
      Effect.flatMap((claimed) =>
        claimed === handOverBatch
          ? Effect.void
          : Effect.raceFirst(Queue.take(outboxChanged), Effect.sleep(claimed === undefined ? retryHandOver : idlePoll))
      ),
      Effect.forever,
      Effect.withLogSpan("dispatcher.outbox")
    )

    yield* Effect.forkScoped(handOverLoop)
    yield* Effect.logInfo("Dispatcher started")
  })
).pipe(
  Layer.provide(
    Layer.mergeAll(OutboxRepo.layer, WebhookDeliveries.layer, MailDeliveries.layer, StateChanges.layer)
  )
)
