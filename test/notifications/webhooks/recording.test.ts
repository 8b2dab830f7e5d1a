/**
 * What the dispatcher saves per attempt, as fast as it can: deliveries claimed with their
 * webhook's details in one statement, attempts recorded many per statement with the same
 * outcome as one after the other, and the organization profile served from memory until a
 * change is announced.
 */
import { expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import type { EventName } from "../../../src/domain/NotificationEvent.js"
import { DeliveryResult } from "../../../src/domain/Webhook.js"
import { Database } from "../../../src/persistence/Database.js"
import { WebhookDeliveriesRepo } from "../../../src/persistence/WebhookDeliveriesRepo.js"
import { WebhooksRepo } from "../../../src/persistence/WebhooksRepo.js"
import { OrganizationProfile } from "../../../src/services/catalog/OrganizationProfile.js"
import { StateChanges } from "../../../src/services/StateChanges.js"
import { eventually } from "../../support/Eventually.js"
import { minimumLogLevel } from "../../support/Logs.js"
import { testConfig } from "../../support/TestDatabase.js"

const Base = Layer.mergeAll(
  WebhookDeliveriesRepo.layer,
  WebhooksRepo.layer,
  OrganizationProfile.layer,
  StateChanges.layer
).pipe(
  Layer.provideMerge(Database),
  Layer.provide(testConfig({ PUBLIC_URL: "https://status.example.test" })),
  Layer.provideMerge(minimumLogLevel("Warn"))
)

// StateChanges listens in the background and, once it does, tells every reader to look again:
// waited for here, so that notice cannot land between a test's write behind a cache and its read.
const Services = Layer.effectDiscard(
  Effect.flatMap(StateChanges, (changes) => eventually(Effect.sync(() => changes.version()), (version) => version > 0))
).pipe(Layer.provideMerge(Base))

const ok = new DeliveryResult({ success: true, statusCode: 204, durationMs: 3, error: null })
const failed = (status: number) =>
  new DeliveryResult({ success: false, statusCode: status, durationMs: 4, error: `HTTP ${status}` })

it.layer(Services)("recording webhook attempts", (it) => {
  it.effect("a claim brings each delivery's webhook url, type, secret and state", () =>
    Effect.gen(function*() {
      const hooks = yield* WebhooksRepo
      const repo = yield* WebhookDeliveriesRepo
      const hook = yield* hooks.insert({ name: "signed", url: "http://127.0.0.1:9/a", type: "generic" }, "s3cret")
      const at = new Date("2026-03-01T10:00:00.000Z")
      yield* repo.enqueue({ id: "evt_claim", event: "incident.created", encoded: { any: "thing" } }, [hook.id], at)
      const claimed = yield* repo.claimDue(at, 10, Duration.seconds(15))
      expect(claimed.map(({ delivery, target }) => [delivery.eventId, delivery.webhookId, delivery.attempts, target]))
        .toEqual([
          ["evt_claim", hook.id, 0, { url: "http://127.0.0.1:9/a", type: "generic", secret: "s3cret", isActive: true }]
        ])
      // Leased: not due again before the lease runs out.
      expect(yield* repo.claimDue(at, 10, Duration.seconds(15))).toEqual([])
      yield* hooks.remove(hook.id)
    }))

  it.effect("one batch records every attempt and leaves the counters as one attempt after another would", () =>
    Effect.gen(function*() {
      const hooks = yield* WebhooksRepo
      const repo = yield* WebhookDeliveriesRepo
      const sql = yield* SqlClient.SqlClient
      const a = yield* hooks.insert({ name: "a", url: "http://127.0.0.1:9/a", type: "generic" }, "x")
      const b = yield* hooks.insert({ name: "b", url: "http://127.0.0.1:9/b", type: "chat_a" }, null)
      const gone = yield* hooks.insert({ name: "gone", url: "http://127.0.0.1:9/c", type: "chat_b" }, null)
      yield* sql`update webhooks set consecutive_failures = 2 where id = ${b.id}`
      const at = new Date("2026-03-01T10:00:00.000Z")
      const event = (id: string) => ({ id, event: "incident.created" as const, encoded: { id } })
      yield* Effect.forEach(["evt_1", "evt_2", "evt_3"], (id) => repo.enqueue(event(id), [a.id, b.id, gone.id], at))
      const claimed = yield* repo.claimDue(at, 100, Duration.seconds(15))
      expect(claimed).toHaveLength(9)
      const of = (hook: string, eventId: string) =>
        claimed.find(({ delivery }) => delivery.webhookId === hook && delivery.eventId === eventId)!.delivery
      const retryAt = new Date("2026-03-01T10:00:05.000Z")
      // The webhook "gone" is deleted between the attempt and its record: its outcome is dropped.
      yield* hooks.remove(gone.id)
      const recorded = yield* repo.recordAttempts([
        // a: fails for good, then a success resets it, then a retry is scheduled (not counted).
        { delivery: of(a.id, "evt_1"), result: failed(500), attemptedAt: at, retryAt: null },
        { delivery: of(a.id, "evt_2"), result: ok, attemptedAt: at, retryAt: null },
        { delivery: of(a.id, "evt_3"), result: failed(503), attemptedAt: at, retryAt },
        // b: two final failures on top of its two earlier ones, the last error kept.
        { delivery: of(b.id, "evt_1"), result: failed(500), attemptedAt: at, retryAt: null },
        { delivery: of(b.id, "evt_2"), result: failed(502), attemptedAt: at, retryAt: null },
        { delivery: of(gone.id, "evt_1"), result: ok, attemptedAt: at, retryAt: null }
      ])
      // What each of the recorded deliveries holds now; the one of the deleted webhook is gone.
      const rows = yield* sql<
        {
          webhookId: string
          eventId: string
          status: string
          attempts: number
          lastStatusCode: number
          nextAttemptAt: Date | null
        }
      >`
        select webhook_id, event_id, status, attempts, last_status_code, next_attempt_at from webhook_deliveries
        where id in ${sql.in([...recorded])}`
      expect(recorded.size).toBe(5)
      expect(
        rows.map((
          d
        ) => [d.webhookId === a.id ? "a" : "b", d.eventId, d.status, d.attempts, d.lastStatusCode, d.nextAttemptAt])
          .sort()
      )
        .toEqual([
          ["a", "evt_1", "failed", 1, 500, null],
          ["a", "evt_2", "delivered", 1, 204, null],
          ["a", "evt_3", "pending", 1, 503, retryAt],
          ["b", "evt_1", "failed", 1, 500, null],
          ["b", "evt_2", "failed", 1, 502, null]
        ])
      const counters = yield* sql<{ name: string; consecutiveFailures: number; lastError: string | null }>`
        select name, consecutive_failures, last_error from webhooks where id in (${a.id}, ${b.id}) order by name`
      expect(counters).toEqual([
        { name: "a", consecutiveFailures: 0, lastError: "HTTP 500" },
        { name: "b", consecutiveFailures: 4, lastError: "HTTP 502" }
      ])
      const firstTen = { limit: 10, cursor: undefined }
      const logged = [
        ...(yield* repo.attemptsPage(a.id, firstTen)).items,
        ...(yield* repo.attemptsPage(b.id, firstTen)).items
      ]
      expect(logged.map((attempt) => [attempt.eventId, attempt.attempt, attempt.success, attempt.statusCode]).sort())
        .toEqual([
          ["evt_1", 1, false, 500],
          ["evt_1", 1, false, 500],
          ["evt_2", 1, false, 502],
          ["evt_2", 1, true, 204],
          ["evt_3", 1, false, 503]
        ])
      yield* Effect.forEach([a, b], (hook) => hooks.remove(hook.id))
    }))

  it.effect("a hand-over pass enqueues many events to their recipients in their order in one statement, idempotently", () =>
    Effect.gen(function*() {
      const hooks = yield* WebhooksRepo
      const repo = yield* WebhookDeliveriesRepo
      const sql = yield* SqlClient.SqlClient
      const a = yield* hooks.insert({
        name: "many a",
        url: "http://127.0.0.1:9/a",
        type: "generic",
        componentIds: ["cmp_many"]
      }, "x")
      const b = yield* hooks.insert({
        name: "many b",
        url: "http://127.0.0.1:9/b",
        type: "chat_c",
        componentIds: ["cmp_many", "cmp_other"],
        notifyOnMaintenance: false
      }, null)
      // Receives nothing: disabled.
      const off = yield* hooks.insert({
        name: "many off",
        url: "http://127.0.0.1:9/off",
        type: "generic",
        isActive: false
      }, "y")
      const at = new Date("2026-03-01T10:00:00.000Z")
      // evt_m2 is about a component only b watches; evt_m4 is maintenance, which b does not want.
      const events = [
        ["evt_m1", "incident.created", ["cmp_many"]],
        ["evt_m2", "incident.updated", ["cmp_other"]],
        ["evt_m3", "incident.resolved", ["cmp_many"]],
        ["evt_m4", "maintenance.scheduled", ["cmp_many"]]
      ].map(([id, event, componentIds], i) => ({
        id: id as string,
        event: event as EventName,
        encoded: { id, n: i },
        componentIds: componentIds as Array<string>
      }))
      // The first two are created claimed for the caller, until the lease's end.
      const until = new Date(at.getTime() + 15_000)
      const created = yield* repo.enqueueMany(events, at, { limit: 2, until })
      const name = (webhookId: string) => (webhookId === a.id ? "a" : webhookId === b.id ? "b" : webhookId)
      expect(created.map((row) => [row.eventId, name(row.webhookId), row.claimed])).toEqual([
        ["evt_m1", "a", true],
        ["evt_m1", "b", true],
        ["evt_m2", "b", false],
        ["evt_m3", "a", false],
        ["evt_m3", "b", false],
        ["evt_m4", "a", false]
      ])
      // Each comes with its webhook's address, format and secret.
      expect(created.slice(0, 2).map((row) => [row.targetUrl, row.targetType, row.targetSecret])).toEqual([
        [a.url, "generic", "x"],
        [b.url, "chat_c", null]
      ])
      // Handed over again (a lease ran out): nothing new.
      expect(yield* repo.enqueueMany(events, at)).toEqual([])
      const rows = yield* sql<
        { eventId: string; webhookId: string; event: unknown; status: string; nextAttemptAt: Date }
      >`
        select event_id, webhook_id, event, status, next_attempt_at from webhook_deliveries
        where event_id like 'evt_m%' order by sequence`
      expect(rows.map((row) => [row.eventId, name(row.webhookId), row.event, row.status, row.nextAttemptAt]))
        .toEqual([
          ["evt_m1", "a", { id: "evt_m1", n: 0 }, "pending", until],
          ["evt_m1", "b", { id: "evt_m1", n: 0 }, "pending", until],
          ["evt_m2", "b", { id: "evt_m2", n: 1 }, "pending", at],
          ["evt_m3", "a", { id: "evt_m3", n: 2 }, "pending", at],
          ["evt_m3", "b", { id: "evt_m3", n: 2 }, "pending", at],
          ["evt_m4", "a", { id: "evt_m4", n: 3 }, "pending", at]
        ])
      // Claimed deliveries are not due before their lease runs out.
      expect(
        (yield* repo.claimDue(at, 100, Duration.seconds(15))).map((c) => c.delivery.eventId).filter((id) =>
          id.startsWith("evt_m")
        )
      )
        .toEqual(["evt_m2", "evt_m3", "evt_m3", "evt_m4"])
      yield* Effect.forEach([a, b, off], (hook) => hooks.remove(hook.id))
    }))

  it.effect("the organization profile is read again after a change, and only then", () =>
    Effect.gen(function*() {
      const profile = yield* OrganizationProfile
      const changes = yield* StateChanges
      const sql = yield* SqlClient.SqlClient
      const before = yield* profile.get()
      const renamed = yield* profile.update(before.id, { name: "Renamed Status" })
      expect(renamed.name).toBe("Renamed Status")
      expect((yield* profile.get()).name).toBe("Renamed Status")
      // Written behind its back (as another instance would), then announced (as its NOTIFY would be).
      yield* sql`update organizations set name = ${"Elsewhere Status"}`
      expect((yield* profile.get()).name).toBe("Renamed Status")
      yield* changes.commit(Effect.void)
      expect((yield* profile.get()).name).toBe("Elsewhere Status")
    }))
})
