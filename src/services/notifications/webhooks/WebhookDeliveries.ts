/**
 * Delivery of events to webhooks with retries: what the dispatcher calls. Its hand-over passes
 * committed events to `enqueueMany` and its work pump `start`s the deliveries handed over or
 * claimed with `claimDue`; the schedule lives in the database, so a restart loses no retry.
 *
 * An attempt is plain callbacks from its start to its outcome waiting to be recorded (the
 * request, the clock, the caches are all synchronous): at thousands of deliveries a second the
 * Effect steps of an attempt cost about as much as the request. What touches the database (the
 * claims, the records, a rare cancellation) stays in Effect, a statement per batch.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, FiberSet, Layer, Option, Queue, Schema } from "effect"

import type { Sender } from "../../../domain/NotificationEvent.js"
import { NotificationEvent } from "../../../domain/NotificationEvent.js"
import type { WebhookDelivery, WebhookType } from "../../../domain/Webhook.js"
import { countAttempt, webhookAttempts } from "../../../observability/Metrics.js"
import type { AttemptOutcome, ClaimedDelivery, DeliveryRow } from "../../../persistence/WebhookDeliveriesRepo.js"
import { afterAttempt, WebhookDeliveriesRepo } from "../../../persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../../persistence/WebhooksRepo.js"
import { AppConfig } from "../../../runtime/Config.js"
import { startSpan, TracingEnabled } from "../../../runtime/Telemetry.js"
import { OrganizationProfile } from "../../catalog/OrganizationProfile.js"
import { makeDeliveryQueue } from "../dispatcher/DeliveryQueue.js"
import { nextAttemptAt } from "../dispatcher/RetrySchedule.js"
import type { Abandon } from "../dispatcher/WorkPump.js"
import { buildDeliveryRequest } from "./DeliveryRequest.js"
import { renderBody } from "./Payload.js"
import { DeliveryTimeout, WebhookSender } from "./WebhookSender.js"

/** What an attempt needs beyond its claim: whom the payload names as its sender, read with the claim. */
export interface ReadyDelivery extends ClaimedDelivery {
  readonly sender: Sender
}

/** How long a claim keeps a delivery from other dispatchers, beyond the receiver's time-out: the bookkeeping. */
const leaseMargin = Duration.seconds(5)

/** What an attempt needs of its claim besides the receiver's time-out: building, queueing and recording. */
const attemptMargin = 2_000

/** At most this many attempts are recorded by one statement. */
const recordBatchSize = 256
/**
 * How long outcomes that nobody awaits gather before they are recorded. A batching delay, so it
 * runs on the wall clock: service time (a TestClock in tests) must not hold outcomes back.
 */
const recordGathering = Effect.sleep(Duration.millis(20)).pipe(
  Effect.provideService(Clock.Clock, Clock.Clock.defaultValue())
)
/** Attempts whose outcome waits to be recorded, at most (then the next ones hold their slot until there is room). */
const recordBacklog = 4 * recordBatchSize

/** Decoded events, and rendered bodies, kept in memory: enough for the events of a few hand-over passes. */
const recentEvents = 512

/** A map that keeps its last `size` entries: what a fan-out reuses, without growing. */
const recentMap = <V>(size: number) => {
  const entries = new Map<string, V>()
  return {
    get: (key: string) => entries.get(key),
    set: (key: string, value: V) => {
      if (entries.has(key)) return
      if (entries.size >= size) entries.delete(entries.keys().next().value!)
      entries.set(key, value)
    }
  }
}

const encodeEvent = Schema.encodeSync(NotificationEvent)
const decodeEvent = Schema.decodeUnknownSync(NotificationEvent)

/** How an attempt ended, for a caller that waits for it: the delivery as recorded, or none if it was left alone. */
type Recorded = (exit: Exit.Exit<Option.Option<WebhookDelivery>, unknown>) => void

const leftAlone = Exit.succeed(Option.none<WebhookDelivery>())

export class WebhookDeliveries extends Context.Service<WebhookDeliveries>()("WebhookDeliveries", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* WebhooksRepo
    const deliveries = yield* WebhookDeliveriesRepo
    const organization = yield* OrganizationProfile
    const webhookSender = yield* WebhookSender
    // What an attempt runs as an Effect (a cancellation, a log line): the service's close waits for it.
    const run = yield* FiberSet.makeRuntime<never>()
    // Read once: the attempts run outside any fiber, and claims and attempts must agree on the time.
    const clock = yield* Clock.Clock
    const tracing = yield* TracingEnabled
    const tracer = yield* Effect.tracer
    const timeout = yield* DeliveryTimeout
    const attemptNeedsMs = Duration.toMillis(timeout) + attemptMargin
    const now = Effect.sync(() => new Date(clock.currentTimeMillisUnsafe()))
    // Claimed oldest first, for one lease; the dispatcher's pump hears when a delivery attempted here comes due again.
    const queue = makeDeliveryQueue({ lease: Duration.sum(timeout, leaseMargin), now, claim: deliveries.claimDue })
    const senderOf = Effect.map(
      organization.get(),
      (profile): Sender => ({ name: profile.name, url: config.publicUrl })
    )

    /**
     * Attempt outcomes wait here to be recorded, many per statement: one fiber takes whatever
     * has gathered (while it records a batch, the next one gathers). The dispatcher's attempts
     * free their slot once their outcome is queued (the request is over); `attempt` callers
     * that want the updated delivery wait for the record. Nothing is forgotten: an outcome never
     * recorded (a crash) leaves its delivery due again when the lease runs out, and those still
     * queued at shutdown are recorded before the service closes. Beyond `recordBacklog`
     * outcomes, a finished attempt keeps its slot until there is room, so a database that
     * records slowly slows the sending down with it.
     */
    type Pending = { readonly outcome: AttemptOutcome; readonly recorded: Recorded | undefined }
    const pending: Array<Pending> = []
    // The slots of the outcomes queued beyond the backlog, in order, freed as the recorder takes batches.
    const heldSlots: Array<() => void> = []
    const outcomesQueued = yield* Queue.sliding<void>(1)
    // Set once the outcomes left at shutdown are recorded: a later one (an `attempt` that outlived the service) is not.
    let closed = false

    const queueOutcome = (item: Pending, slotFree: () => void) => {
      if (item.outcome.retryAt !== null) queue.dueAgain(item.outcome.retryAt)
      if (closed) {
        slotFree()
        return item.recorded?.(Exit.interrupt())
      }
      pending.push(item)
      if (pending.length <= recordBacklog) slotFree()
      else heldSlots.push(slotFree)
      Queue.offerUnsafe(outcomesQueued, undefined)
    }

    const takeBatch = () => {
      const batch = pending.splice(0, recordBatchSize)
      while (heldSlots.length > Math.max(0, pending.length - recordBacklog)) heldSlots.shift()!()
      return batch
    }

    const recordOneByOne = (batch: ReadonlyArray<Pending>) =>
      Effect.forEach(
        batch,
        ({ outcome, recorded }) =>
          deliveries.recordAttempt(outcome.delivery, outcome.result, outcome.attemptedAt, outcome.retryAt).pipe(
            Effect.exit,
            Effect.flatMap((exit) =>
              recorded !== undefined
                ? Effect.sync(() => recorded(Exit.map(exit, Option.some)))
                : Exit.isFailure(exit)
                ? Effect.logError(
                  `The attempt of webhook delivery ${outcome.delivery.id} could not be recorded`,
                  exit.cause
                )
                : Effect.void
            )
          ),
        { discard: true }
      )

    // Each delivery appears once in a batch: one attempt at a time holds its claim.
    const recordBatch = (batch: ReadonlyArray<Pending>) =>
      deliveries.recordAttempts(batch.map((item) => item.outcome)).pipe(
        Effect.flatMap((recordedIds) =>
          Effect.sync(() => {
            for (const { outcome, recorded } of batch) {
              if (recorded === undefined) continue
              recorded(
                Exit.succeed(recordedIds.has(outcome.delivery.id) ? Option.some(afterAttempt(outcome)) : Option.none())
              )
            }
          })
        ),
        // The database is away: one by one would only wait out its time-out once per outcome
        // (at shutdown, for minutes). Unrecorded, each delivery is due again when its lease runs out.
        Effect.catchTag(
          "ServiceUnavailable",
          (error) =>
            Effect.logWarning(`${batch.length} webhook attempts could not be recorded: the database is unavailable`)
              .pipe(
                Effect.andThen(Effect.sync(() => batch.forEach(({ recorded }) => recorded?.(Exit.fail(error)))))
              )
        ),
        // One bad row must not cost the others their record: then each goes on its own.
        Effect.catchCause((cause) =>
          Effect.logWarning(
            `Recording ${batch.length} webhook attempts at once failed; recording them one by one`,
            cause
          ).pipe(
            Effect.andThen(recordOneByOne(batch))
          )
        )
      )
    // What is taken from the queue is recorded: database work is finished, never cut short.
    const recordTaken = Effect.uninterruptible(Effect.suspend(() => recordBatch(takeBatch())))

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        while (pending.length > 0) yield* recordTaken
        closed = true
      })
    )
    // Outcomes nobody waits for gather a moment longer: fewer, larger statements. Only the
    // waits can be interrupted.
    const recordQueued = Effect.gen(function*() {
      yield* Queue.take(outcomesQueued)
      while (pending.length > 0) {
        if (pending[0]!.recorded === undefined && pending.length < recordBatchSize) yield* recordGathering
        yield* recordTaken
      }
    }).pipe(
      // A bug here must not stop the recording for good: the outcomes still queued are taken next time.
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logError("Recording webhook attempts failed", cause)
      )
    )
    yield* recordQueued.pipe(Effect.forever, Effect.forkScoped)

    /**
     * An event fanned out to many webhooks is decoded once and rendered once per format:
     * deliveries of one event carry the same encoded event (written once by enqueue), so the
     * last few decoded events and rendered bodies are kept by event id. Only the signatures
     * differ from one webhook to the next.
     */
    const decoded = recentMap<NotificationEvent>(recentEvents)
    const rendered = recentMap<string>(recentEvents)
    const eventOf = (delivery: DeliveryRow) => {
      let event = decoded.get(delivery.eventId)
      if (event === undefined) decoded.set(delivery.eventId, event = decodeEvent(delivery.event))
      return event
    }
    const bodyOf = (type: WebhookType, event: NotificationEvent, sender: Sender) => {
      const key = `${event.id} ${type} ${sender.name} ${sender.url}`
      let body = rendered.get(key)
      if (body === undefined) rendered.set(key, body = renderBody(type, event, sender))
      return body
    }

    /** Ends an attempt that could not be made: its waiting caller hears why, or else the log does. */
    const failed = (recorded: Recorded | undefined, message: string, cause: Cause.Cause<unknown>) => {
      if (recorded !== undefined) recorded(Exit.failCause(cause))
      else run(Effect.logError(message, cause))
    }

    /**
     * Makes attempt number `delivery.attempts + 1` and queues its outcome to be recorded, then
     * calls `slotFree` (the request is over); `recorded`, if given, hears how it ended once it
     * is recorded. The webhook's address, format, secret and state, and the sender, come with
     * the claim. Abandoning it (shutdown) records nothing: the claim's lease brings it back.
     *
     * No Effect span per attempt: with thousands of attempts a second, spans (and their stack
     * traces) were a measurable share of the dispatcher's work; failures are logged with the
     * delivery id. With tracing on, a plain span is started and ended by hand.
     */
    const startAttempt = (ready: ReadyDelivery, slotFree: () => void, recorded?: Recorded): Abandon => {
      const { claimedUntil, delivery, sender, target } = ready
      const startedAt = clock.currentTimeMillisUnsafe()
      // A claim that waited too long to cover a whole attempt is left alone: once its lease
      // runs out it is claimed again (here or by another dispatcher), never sent by two at once.
      if (claimedUntil.getTime() - startedAt < attemptNeedsMs) {
        queue.dueAgain(claimedUntil)
        slotFree()
        recorded?.(leftAlone)
        return () => {}
      }
      let event: NotificationEvent
      try {
        event = eventOf(delivery)
      } catch (error) {
        // A row the formats cannot read is a bug to fix, not something a retry mends.
        slotFree()
        failed(recorded, `Webhook delivery ${delivery.id} could not be attempted`, Cause.die(error))
        return () => {}
      }
      // A disabled webhook receives nothing. The statement is never cut short: a shutdown waits for it.
      if (!target.isActive) {
        run(Effect.uninterruptible(deliveries.cancel(delivery, "Webhook disabled before delivery"))).addObserver(
          (exit) => {
            slotFree()
            if (Exit.isSuccess(exit)) recorded?.(exit)
            else failed(recorded, `Webhook delivery ${delivery.id} could not be cancelled`, exit.cause)
          }
        )
        return () => {}
      }
      const request = buildDeliveryRequest({
        target,
        event,
        sender,
        deliveryId: delivery.id,
        timestamp: Math.floor(startedAt / 1000),
        body: bodyOf(target.type, event, sender)
      })
      // With tracing on (and only then), the attempt is a span of its own; never the URL, which may hold a secret.
      const span = tracing
        ? startSpan(tracer, "WebhookDeliveries.attempt", "client", {
          "webhook.delivery_id": delivery.id,
          "webhook.id": delivery.webhookId,
          "webhook.type": target.type,
          "webhook.attempt": delivery.attempts + 1
        }, clock.currentTimeNanosUnsafe())
        : undefined
      return webhookSender.post(request, timeout, (result) => {
        if (span !== undefined) {
          if (result.statusCode !== null) span.attribute("http.response.status_code", result.statusCode)
          span.end(clock.currentTimeNanosUnsafe(), result.success ? Exit.void : Exit.fail(result.error))
        }
        const finishedAt = new Date(clock.currentTimeMillisUnsafe())
        const retryAt = result.success ? null : Option.getOrNull(nextAttemptAt(delivery.attempts + 1, finishedAt))
        countAttempt(webhookAttempts, result.success ? "delivered" : "failed", delivery.attempts + 1)
        queueOutcome({ outcome: { delivery, result, attemptedAt: finishedAt, retryAt }, recorded }, slotFree)
      })
    }

    /** Attempts a claimed delivery and returns it as recorded (none: left alone, its claim too old). */
    const attempt = (ready: ReadyDelivery) =>
      Effect.callback<Option.Option<WebhookDelivery>, unknown>((resume) => {
        const abandon = startAttempt(ready, () => {}, resume)
        return Effect.sync(abandon)
      })

    /** Claims up to `limit` due deliveries, oldest first, for one lease, with their webhooks and the sender. */
    const claimDue = (limit: number) =>
      Effect.map(
        Effect.all([queue.claimDue(limit), senderOf], { concurrency: 2 }),
        ([claimed, sender]) => claimed.map((delivery): ReadyDelivery => ({ ...delivery, sender }))
      )

    return {
      /**
       * Tells `listener`, for the scope's lifetime, when a delivery this process attempted comes
       * due again (epoch milliseconds): its retry, or the end of a claim left to run out.
       */
      onDueAgain: queue.onDueAgain,

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
       * `enqueue` for the events of a hand-over pass, in their order, in one statement that
       * also finds their recipients. The first `claimLimit` new deliveries are created claimed
       * and returned ready to attempt (with their webhooks as the statement read them), so the
       * caller sends them without claiming them again. Returns how many deliveries were new, and
       * the claimed ones.
       */
      enqueueMany: (events: ReadonlyArray<NotificationEvent>, claimLimit = 0) =>
        Effect.gen(function*() {
          const items = events.map((event) => {
            // Its deliveries, claimed here or later, need not decode it again.
            decoded.set(event.id, event)
            return { id: event.id, event: event.event, encoded: encodeEvent(event), componentIds: event.componentIds }
          })
          const dueAt = yield* now
          const claimedUntil = queue.leaseFrom(dueAt)
          // Their attempts render with the organization's profile: a change (any committed change)
          // leaves it to be read again, and reading it here keeps that read out of their way.
          const [created, sender] = yield* Effect.all([
            deliveries.enqueueMany(items, dueAt, { limit: claimLimit, until: claimedUntil }),
            senderOf
          ], { concurrency: 2 })
          const itemOf = new Map(items.map((item) => [item.id, item]))
          const claimed: Array<ReadyDelivery> = []
          for (const row of created) {
            if (!row.claimed) continue
            const item = itemOf.get(row.eventId)!
            claimed.push({
              delivery: {
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
              },
              claimedUntil,
              target: { url: row.targetUrl, type: row.targetType, secret: row.targetSecret, isActive: true },
              sender
            })
          }
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
            (ready) =>
              attempt(ready).pipe(
                Effect.catchCause((cause) =>
                  Effect.logError(`Webhook delivery ${ready.delivery.id} could not be attempted`, cause).pipe(
                    Effect.as(Option.none<WebhookDelivery>())
                  )
                )
              ),
            { concurrency: 10 }
          )
          return outcomes.flatMap(Option.toArray)
        }),

      claimDue,
      attempt,
      /** `attempt` for the dispatcher's work pump: `done` once the request is over and its outcome queued. */
      start: (ready: ReadyDelivery, done: () => void): Abandon => startAttempt(ready, done)
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
