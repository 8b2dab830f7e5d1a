/**
 * Delivery of events to webhooks with retries: what the dispatcher calls. Its hand-over passes
 * committed events to `enqueueMany` and its work pump `send`s the deliveries handed over or
 * claimed with `claimDue`; the schedule lives in the database, so a restart loses no retry.
 */
import { Array, Clock, Deferred, Duration, Effect, Exit, Option, Queue, Schema } from "effect"
import { AppConfig } from "../../Config.js"
import { NotificationEvent } from "../../domain/NotificationEvent.js"
import type { Sender } from "../../domain/NotificationEvent.js"
import { WebhookDelivery } from "../../domain/Webhook.js"
import type { WebhookType } from "../../domain/Webhook.js"
import { WebhookDeliveriesRepo } from "../../persistence/WebhookDeliveriesRepo.js"
import type { AttemptOutcome, ClaimedDelivery } from "../../persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../persistence/WebhooksRepo.js"
import { OrganizationProfile } from "../Organization.js"
import { buildDeliveryRequest } from "./DeliveryRequest.js"
import { renderBody } from "./Payload.js"
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
const recordBatchSize = 256
/**
 * How long outcomes that nobody awaits gather before they are recorded. A batching delay, so it
 * runs on the wall clock: service time (a TestClock in tests) must not hold outcomes back.
 */
const recordGathering = Effect.sleep(Duration.millis(20)).pipe(Effect.withClock(Clock.make()))
/** Attempts whose outcome waits to be recorded, at most (then the next ones wait before freeing their slot). */
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
const decodeEvent = Schema.decodeUnknown(NotificationEvent)

export class WebhookDeliveries extends Effect.Service<WebhookDeliveries>()("WebhookDeliveries", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* WebhooksRepo
    const deliveries = yield* WebhookDeliveriesRepo
    const organization = yield* OrganizationProfile
    const webhookSender = yield* WebhookSender
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /**
     * Attempt outcomes wait here to be recorded, many per statement: one fiber takes whatever
     * has gathered (while it records a batch, the next one gathers). The dispatcher's attempts
     * end once their outcome is queued (the request is over, its slot free); `attempt` callers
     * that want the updated delivery wait for the record. Nothing is forgotten: an outcome never
     * recorded (a crash) leaves its delivery due again when the lease runs out, and those still
     * queued at shutdown are recorded before the service closes. The queue is bounded, so a
     * database that records slowly slows the sending down with it.
     */
    type Pending = {
      readonly outcome: AttemptOutcome
      readonly recorded?: Deferred.Deferred<Option.Option<WebhookDelivery>, unknown>
    }
    const pending = yield* Queue.bounded<Pending>(recordBacklog)

    const recordOneByOne = (batch: ReadonlyArray<Pending>) =>
      Effect.forEach(batch, ({ outcome, recorded }) =>
        deliveries.recordAttempt(outcome.delivery, outcome.result, outcome.attemptedAt, outcome.retryAt).pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            recorded !== undefined
              ? Deferred.done(recorded, Exit.map(exit, Option.some))
              : Exit.isFailure(exit)
              ? Effect.logError(`The attempt of webhook delivery ${outcome.delivery.id} could not be recorded`, exit.cause)
              : Effect.void
          )
        ), { discard: true })

    // Each delivery appears once in a batch: one attempt at a time holds its claim.
    const recordBatch = (batch: ReadonlyArray<Pending>) =>
      deliveries.recordAttempts(batch.map((item) => item.outcome)).pipe(
        Effect.flatMap((updated) => {
          const byId = new Map(updated.map((delivery) => [delivery.id, delivery]))
          return Effect.forEach(batch, ({ outcome, recorded }) =>
            recorded === undefined ? Effect.void : Deferred.succeed(recorded, Option.fromNullable(byId.get(outcome.delivery.id))), {
            discard: true
          })
        }),
        // The database is away: one by one would only wait out its time-out once per outcome
        // (at shutdown, for minutes). Unrecorded, each delivery is due again when its lease runs out.
        Effect.catchTag("ServiceUnavailable", (error) =>
          Effect.logWarning(`${batch.length} webhook attempts could not be recorded: the database is unavailable`).pipe(
            Effect.zipRight(Effect.forEach(batch, ({ recorded }) => recorded === undefined ? Effect.void : Deferred.fail(recorded, error), {
              discard: true
            }))
          )),
        // One bad row must not cost the others their record: then each goes on its own.
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`Recording ${batch.length} webhook attempts at once failed; recording them one by one`, cause).pipe(
            Effect.zipRight(recordOneByOne(batch))
          )
        ),
        // Database work is finished, never cut short.
        Effect.uninterruptible
      )

    yield* Effect.addFinalizer(() =>
      Queue.takeAll(pending).pipe(
        Effect.flatMap((left) => Effect.forEach(Array.chunksOf(Array.fromIterable(left), recordBatchSize), recordBatch, { discard: true })),
        Effect.zipRight(Queue.shutdown(pending))
      )
    )
    // Outcomes nobody waits for gather a moment longer: fewer, larger statements.
    const gathered = (first: Pending) =>
      first.recorded === undefined && Option.getOrElse(pending.unsafeSize(), () => 0) < recordBatchSize - 1
        ? Effect.zipRight(recordGathering, Queue.takeUpTo(pending, recordBatchSize - 1))
        : Queue.takeUpTo(pending, recordBatchSize - 1)
    // Only the wait for an outcome is interruptible: what was taken from the queue is recorded.
    const recordNext = Effect.uninterruptibleMask((restore) =>
      restore(Queue.take(pending)).pipe(
        Effect.flatMap((first) => Effect.flatMap(gathered(first), (rest) => recordBatch([first, ...rest])))
      )
    )
    yield* recordNext.pipe(Effect.forever, Effect.forkScoped)

    /**
     * An event fanned out to many webhooks is decoded once and rendered once per format:
     * deliveries of one event carry the same encoded event (written once by enqueue), so the
     * last few decoded events and rendered bodies are kept by event id. Only the signatures
     * differ from one webhook to the next.
     */
    const decoded = recentMap<NotificationEvent>(recentEvents)
    const rendered = recentMap<string>(recentEvents)
    const eventOf = (delivery: WebhookDelivery) =>
      Effect.suspend(() => {
        const known = decoded.get(delivery.eventId)
        if (known !== undefined) return Effect.succeed(known)
        return decodeEvent(delivery.event).pipe(
          Effect.orDie,
          Effect.tap((event) => Effect.sync(() => decoded.set(event.id, event)))
        )
      })
    const bodyOf = (type: WebhookType, event: NotificationEvent, sender: Sender) => {
      const key = `${event.id} ${type} ${sender.name} ${sender.url}`
      let body = rendered.get(key)
      if (body === undefined) rendered.set(key, body = renderBody(type, event, sender))
      return body
    }

    /** Queues `outcome` to be recorded; with `awaitRecord`, waits until it is in the database. */
    const queueOutcome = (outcome: AttemptOutcome, awaitRecord: boolean) =>
      awaitRecord
        ? Effect.flatMap(Deferred.make<Option.Option<WebhookDelivery>, unknown>(), (recorded) =>
          Queue.offer(pending, { outcome, recorded }).pipe(Effect.zipRight(Deferred.await(recorded))))
        : Queue.offer(pending, { outcome }).pipe(Effect.as(Option.none<WebhookDelivery>()))

    /**
     * Makes attempt number `delivery.attempts + 1` and queues its outcome to be recorded. Only
     * the request can be interrupted (shutdown): then nothing is recorded and the claim's lease
     * brings it back. Database work is never cut short (that can stall the embedded PGlite's
     * shared session). The webhook's address, format, secret and state come with the claim.
     *
     * No span per attempt: with thousands of attempts a second, spans (and their stack traces)
     * were a measurable share of the dispatcher's work; failures are logged with the delivery id.
     */
    const attemptWith = ({ claimedUntil, delivery, target }: ClaimedDelivery, awaitRecord: boolean) =>
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
        const sender = { name: profile.name, url: config.publicUrl }
        const result = yield* restore(webhookSender.send(buildDeliveryRequest({
          target,
          event,
          sender,
          deliveryId: delivery.id,
          timestamp: Math.floor(startedAt.getTime() / 1000),
          body: bodyOf(target.type, event, sender)
        })))
        const finishedAt = yield* now
        const retryAt = result.success ? null : Option.getOrNull(nextAttemptAt(delivery.attempts + 1, finishedAt))
        return yield* queueOutcome({ delivery, result, attemptedAt: finishedAt, retryAt }, awaitRecord)
      }))

    /** Attempts a claimed delivery and returns it as recorded (none: left alone, its claim too old). */
    const attempt = (claimed: ClaimedDelivery) => attemptWith(claimed, true)

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
          const claimedUntil = new Date(dueAt.getTime() + Duration.toMillis(yield* claimLease))
          // Their attempts render with the organization's profile: a change (any committed change)
          // leaves it to be read again, and reading it here keeps that read out of their way.
          const [created] = yield* Effect.all([
            deliveries.enqueueMany(items, dueAt, { limit: claimLimit, until: claimedUntil }),
            organization.get()
          ], { concurrency: 2 })
          const itemOf = new Map(items.map((item) => [item.id, item]))
          const claimed = created.filter((row) => row.claimed).map((row): ClaimedDelivery => {
            const item = itemOf.get(row.eventId)!
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
              target: { url: row.targetUrl, type: row.targetType, secret: row.targetSecret, isActive: true }
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
      attempt,
      /** `attempt` for the dispatcher's pump: done once the outcome is queued to be recorded. */
      send: (claimed: ClaimedDelivery) => Effect.asVoid(attemptWith(claimed, false))
    } as const
  }),
  dependencies: [WebhooksRepo.Default, WebhookDeliveriesRepo.Default, OrganizationProfile.Default, WebhookSender.Default]
}) {}
