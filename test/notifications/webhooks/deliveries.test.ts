/**
 * The operations the dispatcher runs: recipients, idempotent enqueueing, retries on the
 * schedule (driven by the TestClock) and the webhook's failure counters, against real
 * receivers and a real database.
 */
import { expect, it } from "@effect/vitest"
import { Clock, DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import type { NotificationEvent } from "../../../src/domain/NotificationEvent.js"
import { Database } from "../../../src/persistence/Database.js"
import { OrganizationProfile } from "../../../src/services/catalog/OrganizationProfile.js"
import { WebhookDeliveries } from "../../../src/services/notifications/webhooks/WebhookDeliveries.js"
import { Webhooks } from "../../../src/services/notifications/webhooks/Webhooks.js"
import { StateChanges } from "../../../src/services/StateChanges.js"
import { minimumLogLevel } from "../../support/Logs.js"
import type { Answer } from "../../support/Receiver.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { testConfig } from "../../support/TestDatabase.js"

/** The first page of a list, as large as it gets. */
const firstPage = { limit: 1000, cursor: undefined }

const Services = Layer.mergeAll(
  Webhooks.layer,
  WebhookDeliveries.layer,
  OrganizationProfile.layer,
  StateChanges.layer
).pipe(
  Layer.provideMerge(Database),
  Layer.provide(testConfig({ PUBLIC_URL: "https://status.example.test" })),
  Layer.provideMerge(minimumLogLevel("Warn"))
)

let sequence = 0
const incident = (componentIds: ReadonlyArray<string>): NotificationEvent => ({
  id: `evt_${++sequence}`,
  event: "incident.created",
  occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
  componentIds,
  data: { id: "inc", title: "Outage", status: "investigating", severity: "critical", componentIds, message: "Down" }
})

/** Answers with the given statuses in turn, then repeats the last one. */
const answersInTurn = (...statuses: ReadonlyArray<number>): Answer => {
  let calls = 0
  return (request, response, raw) =>
    answerWith(statuses[Math.min(calls++, statuses.length - 1)]!)(request, response, raw)
}

it.layer(Services)("webhook deliveries", (it) => {
  it.effect("sends each event to the active webhooks whose toggle and component filter match", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const url = "http://127.0.0.1:9/unused"
      const all = yield* webhooks.create({ name: "all", url, type: "chat_a" })
      const apiOnly = yield* webhooks.create({ name: "api", url, type: "chat_b", componentIds: ["api"] })
      const noIncidents = yield* webhooks.create({ name: "quiet", url, type: "chat_c", notifyOnIncident: false })
      const inactive = yield* webhooks.create({ name: "off", url, type: "generic", isActive: false })

      const recipients = (event: NotificationEvent) =>
        deliveries.enqueue(event).pipe(Effect.map((rows) => rows.map((row) => row.webhookId).sort()))
      const ours = (ids: ReadonlyArray<string>) =>
        ids.filter((id) => [all.id, apiOnly.id, noIncidents.id, inactive.id].some((known) => known === id))

      expect(ours(yield* recipients(incident(["api", "web"])))).toEqual([all.id, apiOnly.id].sort())
      expect(ours(yield* recipients(incident(["web"])))).toEqual([all.id])
      const maintenance: NotificationEvent = {
        id: `evt_${++sequence}`,
        event: "maintenance.scheduled",
        occurredAt: DateTime.makeUnsafe("2026-03-01T10:00:00.000Z"),
        componentIds: ["db"],
        data: {
          id: "m",
          title: "Upgrade",
          status: "scheduled",
          scheduledStart: "2026-03-02T10:00:00.000Z",
          scheduledEnd: "2026-03-02T11:00:00.000Z",
          componentIds: ["db"]
        }
      }
      expect(ours(yield* recipients(maintenance))).toEqual([all.id, noIncidents.id].sort())
      // Handing the same event over again creates nothing new.
      expect(yield* deliveries.enqueue(maintenance)).toEqual([])
      yield* Effect.forEach([all, apiOnly, noIncidents, inactive], (hook) => webhooks.remove(hook.id))
    }))

  it.effect("a hand-over's claimed deliveries go out at once; one whose lease no longer covers an attempt is left to its lease", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const target = yield* receiver(answersInTurn(200, 200))
      yield* webhooks.create({ name: "handed over", url: target.url, type: "generic", componentIds: ["handed"] })
      const fresh = yield* deliveries.enqueueMany([incident(["handed"])], 10)
      expect([fresh.created, fresh.claimed.length]).toEqual([1, 1])
      // Claimed: not due for anyone else.
      expect(yield* deliveries.deliverDue()).toEqual([])
      expect(Option.getOrThrow(yield* deliveries.attempt(fresh.claimed[0]!)).status).toBe("delivered")

      const stale = yield* deliveries.enqueueMany([incident(["handed"])], 10)
      // 15 s lease, 10 s time-out: after 4 s of waiting the claim no longer covers an attempt.
      yield* TestClock.adjust("4 seconds")
      expect(yield* deliveries.attempt(stale.claimed[0]!)).toEqual(Option.none())
      expect(target.received).toHaveLength(1)
      yield* TestClock.adjust("11 seconds")
      expect((yield* deliveries.deliverDue()).map((d) => [d.id, d.status])).toEqual([[
        stale.claimed[0]!.delivery.id,
        "delivered"
      ]])
      expect(target.received.map((request) => request.headers["webhook-id"])).toEqual(
        [fresh.claimed[0]!.delivery.id, stale.claimed[0]!.delivery.id]
      )
    }))

  it.effect("attempts whose outcome still waits to be recorded when the service stops are recorded before it ends", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const sql = yield* SqlClient.SqlClient
      const target = yield* receiver(answerWith(200))
      // More recipients than one recording statement takes.
      const hooks = yield* Effect.forEach(
        Array.from({ length: 300 }, (_, i) => i),
        (i) => webhooks.create({ name: `stopping ${i}`, url: target.url, type: "generic", componentIds: ["stopping"] })
      )
      const event = incident(["stopping"])
      // A service of its own, stopped as soon as the last attempt is queued to be recorded.
      yield* Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveries
        const { claimed } = yield* deliveries.enqueueMany([event], 300)
        // As the work pump starts them: each done once its request is over and its outcome queued.
        const sent = (ready: (typeof claimed)[number]) =>
          Effect.callback<void>((resume) => void deliveries.start(ready, () => resume(Effect.void)))
        yield* Effect.forEach(claimed, sent, { concurrency: 64, discard: true })
      }).pipe(Effect.provide(WebhookDeliveries.layer, { local: true }), Effect.scoped)
      expect(target.received).toHaveLength(300)
      const statuses = yield* sql<{ status: string; count: number }>`
        select status, count(*)::integer as count from webhook_deliveries where event_id = ${event.id} group by status`
      expect(statuses).toEqual([{ status: "delivered", count: 300 }])
      yield* Effect.forEach(hooks, (hook) => webhooks.remove(hook.id), { discard: true })
    }))

  it.effect("retries after 5 s and 10 s with the same delivery id, and a success resets the failure count", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const target = yield* receiver(answersInTurn(500, 503, 200))
      const hook = yield* webhooks.create({ name: "flaky", url: target.url, type: "generic", componentIds: ["flaky"] })
      const [delivery] = yield* deliveries.enqueue(incident(["flaky"]))

      expect((yield* deliveries.deliverDue()).map((d) => [d.status, d.attempts])).toEqual([["pending", 1]])
      expect(yield* deliveries.deliverDue()).toEqual([])
      yield* TestClock.adjust("4999 millis")
      expect(yield* deliveries.deliverDue()).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect((yield* deliveries.deliverDue()).map((d) => [d.status, d.attempts, d.lastStatusCode])).toEqual([[
        "pending",
        2,
        503
      ]])
      yield* TestClock.adjust("10 seconds")
      expect((yield* deliveries.deliverDue()).map((d) => [d.status, d.attempts])).toEqual([["delivered", 3]])

      expect(target.received.map((request) => request.headers["webhook-id"])).toEqual([
        delivery!.id,
        delivery!.id,
        delivery!.id
      ])
      expect(new Set(target.received.map((request) => request.body)).size).toBe(1)
      const after = (yield* webhooks.list(firstPage)).items.find((w) => w.id === hook.id)
      expect(after).toMatchObject({ consecutiveFailures: 0 })
      const log = (yield* webhooks.deliveries(hook.id, firstPage)).items
      expect(log.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.deliveryId])).toEqual([
        [3, 200, delivery!.id],
        [2, 503, delivery!.id],
        [1, 500, delivery!.id]
      ])
    }))

  it.effect("gives up after 3 retries, counts the failure with its error, and resets on the next success", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const target = yield* receiver(answersInTurn(500, 500, 500, 500, 200))
      const hook = yield* webhooks.create({ name: "down", url: target.url, type: "chat_a", componentIds: ["down"] })
      const enqueuedAt = yield* Clock.currentTimeMillis
      yield* deliveries.enqueue(incident(["down"]))

      // Each attempt comes due exactly when the contract says (5, 10 and 20 s after the last
      // failure), not a millisecond before; after the fourth, never again.
      const statuses: Array<string> = []
      for (const wait of [0, 5_000, 10_000, 20_000]) {
        if (wait > 0) {
          yield* TestClock.adjust(wait - 1)
          expect(yield* deliveries.deliverDue()).toEqual([])
          yield* TestClock.adjust(1)
        }
        statuses.push(...(yield* deliveries.deliverDue()).map((d) => `${d.attempts}:${d.status}`))
      }
      yield* TestClock.adjust("1 hour")
      expect(yield* deliveries.deliverDue()).toEqual([])
      expect(statuses).toEqual(["1:pending", "2:pending", "3:pending", "4:failed"])
      expect(target.received).toHaveLength(4)
      const attempts = (yield* webhooks.deliveries(hook.id, firstPage)).items
      expect(attempts.map((attempt) => (DateTime.toEpochMillis(attempt.attemptedAt) - enqueuedAt) / 1000)).toEqual([
        35,
        15,
        5,
        0
      ])
      expect((yield* webhooks.list(firstPage)).items.find((w) => w.id === hook.id)).toMatchObject({
        consecutiveFailures: 1,
        lastError: "HTTP 500"
      })

      yield* deliveries.enqueue(incident(["down"]))
      expect((yield* deliveries.deliverDue()).map((d) => d.status)).toEqual(["delivered"])
      expect((yield* webhooks.list(firstPage)).items.find((w) => w.id === hook.id)).toMatchObject({
        consecutiveFailures: 0
      })
    }))

  it.effect("a webhook disabled after the event was enqueued receives nothing", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const target = yield* receiver(answerWith(200))
      const hook = yield* webhooks.create({ name: "later off", url: target.url, type: "chat_a", componentIds: ["off"] })
      yield* deliveries.enqueue(incident(["off"]))
      yield* webhooks.toggle(hook.id)
      expect((yield* deliveries.deliverDue()).map((d) => [d.status, d.lastError])).toEqual([
        ["failed", "Webhook disabled before delivery"]
      ])
      expect(target.received).toHaveLength(0)
      expect((yield* webhooks.list(firstPage)).items.find((w) => w.id === hook.id)?.consecutiveFailures).toBe(0)
    }))

  it.effect("a delivery to a webhook disabled meanwhile is ended even when the service stops at once", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const sql = yield* SqlClient.SqlClient
      const target = yield* receiver(answerWith(200))
      const hook = yield* webhooks.create({
        name: "off at shutdown",
        url: target.url,
        type: "chat_a",
        componentIds: ["off-stop"]
      })
      const event = incident(["off-stop"])
      // A service of its own, stopped right after the pump would have started the attempt.
      yield* Effect.gen(function*() {
        const deliveries = yield* WebhookDeliveries
        yield* deliveries.enqueue(event)
        yield* webhooks.toggle(hook.id)
        const [ready] = yield* deliveries.claimDue(10)
        expect(ready!.target.isActive).toBe(false)
        deliveries.start(ready!, () => {})
      }).pipe(Effect.provide(WebhookDeliveries.layer, { local: true }), Effect.scoped)
      const [row] = yield* sql<{ status: string; lastError: string }>`
        select status, last_error from webhook_deliveries where event_id = ${event.id}`
      expect(row).toEqual({ status: "failed", lastError: "Webhook disabled before delivery" })
      expect(target.received).toHaveLength(0)
    }))

  it.effect("a delivery that cannot be attempted does not hold up the others", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const sql = yield* SqlClient.SqlClient
      const target = yield* receiver(answerWith(200))
      const hook = yield* webhooks.create({ name: "mixed", url: target.url, type: "chat_a", componentIds: ["mixed"] })
      yield* sql`
        insert into webhook_deliveries (event_id, event_name, event, webhook_id, next_attempt_at)
        values ('evt_broken', 'incident.created', '{"not":"an event"}'::jsonb, ${hook.id}, ${new Date(0)})`
      yield* deliveries.enqueue(incident(["mixed"]))
      const attempted = yield* deliveries.deliverDue().pipe(
        Effect.provide(minimumLogLevel("None"))
      )
      expect(attempted.map((d) => [d.eventId === "evt_broken", d.status])).toEqual([[false, "delivered"]])
      expect(target.received).toHaveLength(1)
    }))

  it.effect("a hand-over reads the organization's profile again after a change, and its attempts send what it read", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const deliveries = yield* WebhookDeliveries
      const profile = yield* OrganizationProfile
      const changes = yield* StateChanges
      const sql = yield* SqlClient.SqlClient
      const target = yield* receiver(answerWith(200))
      const hook = yield* webhooks.create({ name: "warm", url: target.url, type: "generic", componentIds: ["warm"] })
      const { name } = yield* profile.get()
      /** What the attempts of one hand-over name as the sender, as the receiver gets it. */
      const sentBy = Effect.gen(function*() {
        const { claimed } = yield* deliveries.enqueueMany([incident(["warm"])], 10)
        expect(claimed).toHaveLength(1)
        return {
          attempt: Effect.gen(function*() {
            expect(Option.getOrThrow(yield* deliveries.attempt(claimed[0]!)).status).toBe("delivered")
            return JSON.parse(target.received.at(-1)!.body).organization.name as string
          })
        }
      })
      const rename = (to: string) =>
        Effect.andThen(sql`update organizations set name = ${to}`, changes.commit(Effect.void))

      // A committed change leaves the profile in memory stale: the hand-over reads it again.
      yield* rename("Read by the hand-over")
      const handedOver = yield* sentBy
      // Renamed (and committed) after the hand-over: its attempts still send the profile it read,
      // without reading it themselves; the next hand-over reads the new one.
      yield* rename("Renamed later")
      expect(yield* handedOver.attempt).toBe("Read by the hand-over")
      expect(yield* (yield* sentBy).attempt).toBe("Renamed later")
      yield* rename(name)
      yield* webhooks.remove(hook.id)
    }))
})
