/**
 * Delivery of events to webhooks with retries: what the dispatcher calls. It hands each new
 * event to `enqueue` (once the event is committed) and calls `deliverDue` whenever it wakes;
 * the schedule lives in the database, so a restart loses no retry.
 */
import { Clock, Deferred, Duration, Effect, Exit, Option, Queue, Schema } from "effect"
import { AppConfig } from "../../Config.js"
import { NotificationEvent } from "../../domain/NotificationEvent.js"
import { WebhookDelivery } from "../../domain/Webhook.js"
import type { Webhook, WebhookId } from "../../domain/Webhook.js"
import { WebhookDeliveriesRepo } from "../../persistence/WebhookDeliveriesRepo.js"
import type { AttemptOutcome, ClaimedDelivery } from "../../persistence/WebhookDeliveriesRepo.js"
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

/** What an attempt needs of its claim besides the receiver's time-out: building, queueing and recording. */
const attemptMargin = 2_000

/** At most this many attempts are recorded by one statement. */
const recordBatch = 256
/** Attempts whose outcome waits to be recorded, at most (then the next ones wait before freeing their slot). */
const recordBacklog = 4 * recordBatch

/** Decoded events kept in memory (by event id). */
const decodedEvents = 512

const encodeEvent = Schema.encodeSync(NotificationEvent)
const decodeEvent = Schema.decodeUnknown(NotificationEvent)

export class WebhookDeliveries extends Effect.Service<WebhookDeliveries>()("WebhookDeliveries", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* WebhooksRepo
    const deliveries = yield* WebhookDeliveriesRepo
    const organization = yield* OrganizationProfile
    const sender = yield* WebhookSender
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /**
     * Attempt outcomes wait here to be recorded, many per statement: one fiber takes whatever
     * has gathered (while it records a batch, the next one gathers) and completes each waiting
     * attempt with its updated delivery. Nothing is forgotten: an attempt finishes only once its
     * outcome is in the database (its request slot is free as soon as the outcome is queued here),
     * and one never recorded (crash) is due again when its lease runs out. The queue is bounded,
     * so a database that records slowly slows the sending down with it.
     */
    type Pending = { readonly outcome: AttemptOutcome; readonly recorded: Deferred.Deferred<Option.Option<WebhookDelivery>, unknown> }
    const pending = yield* Queue.bounded<Pending>(recordBacklog)

    const recordOneByOne = (batch: ReadonlyArray<Pending>) =>
      Effect.forEach(batch, ({ outcome, recorded }) =>
        deliveries.recordAttempt(outcome.delivery, outcome.result, outcome.attemptedAt, outcome.retryAt).pipe(
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(recorded, Exit.map(exit, Option.some)))
        ), { discard: true })

    const recordGathered = Effect.gen(function*() {
      const first = yield* Queue.take(pending)
      const rest = yield* Queue.takeUpTo(pending, recordBatch - 1)
      const batch = [first, ...rest]
      // Each delivery appears once in a batch: one attempt at a time holds its claim.
      yield* deliveries.recordAttempts(batch.map((item) => item.outcome)).pipe(
        Effect.flatMap((updated) => {
          const byId = new Map(updated.map((delivery) => [delivery.id, delivery]))
          return Effect.forEach(batch, ({ outcome, recorded }) =>
            Deferred.succeed(recorded, Option.fromNullable(byId.get(outcome.delivery.id))), { discard: true })
        }),
        // One bad row must not cost the others their record: then each goes on its own.
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`Recording ${batch.length} webhook attempts at once failed; recording them one by one`, cause).pipe(
            Effect.zipRight(recordOneByOne(batch))
          )
        ),
        // Database work is finished, never cut short.
        Effect.uninterruptible
      )
    })
    // On shutdown: attempts still waiting to be recorded end unrecorded (their leases bring them back).
    yield* Effect.addFinalizer(() =>
      Queue.takeAll(pending).pipe(
        Effect.flatMap((left) => Effect.forEach(left, ({ recorded }) => Deferred.interrupt(recorded), { discard: true })),
        Effect.zipRight(Queue.shutdown(pending))
      )
    )
    yield* Effect.forkScoped(Effect.forever(recordGathered))

    /**
     * An event fanned out to many webhooks is decoded once: deliveries of one event carry the
     * same encoded event (written once by enqueue), so the last few decoded are kept by event id.
     */
    const decoded = new Map<string, NotificationEvent>()
    const remember = (event: NotificationEvent) => {
      if (decoded.has(event.id)) return
      if (decoded.size >= decodedEvents) decoded.delete(decoded.keys().next().value!)
      decoded.set(event.id, event)
    }
    const eventOf = (delivery: WebhookDelivery) =>
      Effect.suspend(() => {
        const known = decoded.get(delivery.eventId)
        if (known !== undefined) return Effect.succeed(known)
        return decodeEvent(delivery.event).pipe(
          Effect.orDie,
          Effect.tap((event) => Effect.sync(() => remember(event)))
        )
      })

    /** Queues `outcome` to be recorded, runs `queued`, and waits until it is in the database. */
    const record = (outcome: AttemptOutcome, queued: Effect.Effect<void>) =>
      Effect.gen(function*() {
        const recorded = yield* Deferred.make<Option.Option<WebhookDelivery>, unknown>()
        yield* Queue.offer(pending, { outcome, recorded })
        yield* queued
        return yield* Deferred.await(recorded)
      })

    /**
     * Makes attempt number `delivery.attempts + 1` and records it. Only the request can be
     * interrupted (shutdown): then nothing is recorded and the claim's lease brings it back.
     * Database work is never cut short (that can stall the embedded PGlite's shared session).
     * The webhook's address, format, secret and state come with the claim. `requestDone` runs
     * once the request is over and its outcome queued for recording (the work pump frees the
     * attempt's slot then, while the outcome waits for its batch).
     *
     * No span per attempt: with thousands of attempts a second, spans (and their stack traces)
     * were a measurable share of the dispatcher's work; failures are logged with the delivery id.
     */
    const attempt = ({ claimedUntil, delivery, target }: ClaimedDelivery, requestDone: Effect.Effect<void> = Effect.void) =>
      Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        const startedAt = yield* now
        // A claim that waited too long to cover a whole attempt is left alone: once its lease
        // runs out it is claimed again (here or by another dispatcher), never sent by two at once.
        if (claimedUntil.getTime() - startedAt.getTime() < Duration.toMillis(yield* DeliveryTimeout) + attemptMargin) {
          return Option.none<WebhookDelivery>()
        }
        const event = yield* eventOf(delivery)
        // A disabled webhook receives nothing.
        if (!target.isActive) return yield* deliveries.cancel(delivery, "Webhook disabled before delivery")
        const profile = yield* organization.get()
        const result = yield* restore(sender.send(buildDeliveryRequest({
          target,
          event,
          sender: { name: profile.name, url: config.publicUrl },
          deliveryId: delivery.id,
          timestamp: Math.floor(startedAt.getTime() / 1000)
        })))
        const finishedAt = yield* now
        const retryAt = result.success ? null : Option.getOrNull(nextAttemptAt(delivery.attempts + 1, finishedAt))
        return yield* record({ delivery, result, attemptedAt: finishedAt, retryAt }, requestDone)
      }))

    /** Claims up to `limit` due deliveries, oldest first, for one lease, with their webhooks. */
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

      /**
       * `enqueue` for the events of a hand-over pass, in their order, in one statement; the
       * recipients are looked up once per kind of event and components. The first `claimLimit`
       * new deliveries are created claimed and returned ready to attempt (with the webhooks as
       * they were just read), so the caller sends them without claiming them again. Returns how
       * many deliveries were new, and the claimed ones.
       */
      enqueueMany: (events: ReadonlyArray<NotificationEvent>, claimLimit = 0) =>
        Effect.gen(function*() {
          const recipients = new Map<string, ReadonlyArray<Webhook>>()
          const targets = new Map<string, Webhook>()
          const items: Array<{ id: string; event: NotificationEvent["event"]; encoded: unknown; webhookIds: ReadonlyArray<WebhookId> }> = []
          for (const event of events) {
            const key = `${event.event} ${JSON.stringify(event.componentIds.toSorted())}`
            let found = recipients.get(key)
            if (found === undefined) {
              found = yield* webhooks.findRecipients(event.event, event.componentIds)
              recipients.set(key, found)
              for (const webhook of found) targets.set(webhook.id, webhook)
            }
            // Its deliveries, claimed here or later, need not decode it again.
            remember(event)
            items.push({ id: event.id, event: event.event, encoded: encodeEvent(event), webhookIds: found.map((webhook) => webhook.id) })
          }
          const dueAt = yield* now
          const claimedUntil = new Date(dueAt.getTime() + Duration.toMillis(yield* claimLease))
          const created = yield* deliveries.enqueueMany(items, dueAt, { limit: claimLimit, until: claimedUntil })
          const itemOf = new Map(items.map((item) => [item.id, item]))
          const claimed = created.filter((row) => row.claimed).map((row): ClaimedDelivery => {
            const item = itemOf.get(row.eventId)!
            const target = targets.get(row.webhookId)!
            return {
              delivery: new WebhookDelivery({
                id: row.id,
                eventId: row.eventId,
                eventName: item.event,
                event: item.encoded,
                webhookId: row.webhookId,
                status: "pending",
                attempts: 0,
                nextAttemptAt: claimedUntil,
                lastStatusCode: null,
                lastError: null,
                sequence: row.sequence
              }, { disableValidation: true }),
              claimedUntil,
              target: { url: target.url, type: target.type, secret: target.secret, isActive: target.isActive }
            }
          })
          return { created: created.length, claimed }
        }),

      /** Attempts every due delivery (up to `limit`, concurrently) and returns what was attempted. */
      deliverDue: (limit = 50) =>
        Effect.gen(function*() {
          const due = yield* claimDue(limit)
          // One broken delivery (or the database going away mid-batch) must not stop the others;
          // an unrecorded attempt is due again when its claim lease runs out.
          const outcomes = yield* Effect.forEach(
            due,
            (claimed) =>
              attempt(claimed).pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logError(`Webhook delivery ${claimed.delivery.id} could not be attempted`, cause).pipe(
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
