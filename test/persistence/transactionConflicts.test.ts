/**
 * Two changes locking the same rows in opposite orders deadlock in PostgreSQL, which aborts one
 * of them: the client every write runs on (`RetryingSqlClient`) runs the victim again, so both
 * changes land and neither caller sees a 500; and writers that lock several rows take them in
 * one order, so the deadlock the fuzzer met (a webhook's delete against the dispatcher recording
 * one of its deliveries) no longer happens. Real deadlocks on the real database, sequenced with
 * Deferreds and PostgreSQL's own view of who waits for a lock.
 */
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { StateChanges } from "../../src/services/StateChanges.js"
import { eventually } from "../support/Eventually.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

type Step = readonly [statement: string, params: ReadonlyArray<unknown>]

/**
 * A transaction by hand on a connection of its own, out of the app's pool and its retries:
 * runs `first`, says it has (`holding`), waits for `release`, runs `then` (if any) and commits.
 */
const foreignWriter = (
  first: Step,
  holding: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>,
  then?: Step
) =>
  Effect.gen(function*() {
    const writer = yield* (yield* SqlClient.SqlClient).reserve
    const run = ([statement, params]: Step) => writer.execute(statement, params as Array<unknown>, undefined)
    yield* run(["begin", []])
    yield* run(first)
    yield* Deferred.succeed(holding, undefined)
    yield* Deferred.await(release)
    if (then !== undefined) yield* run(then)
    yield* run(["commit", []])
  }).pipe(Effect.forkChild)

/** Waits until a connection of the app waits for a row lock in a statement like `query`. */
const waitingForLock = (query: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    eventually(
      sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and datname = current_database() and query like ${query}`,
      (rows) => rows[0]!.waiting > 0,
      10_000
    ))

/** A webhook with one delivery, as the dispatcher creates it. */
const webhookWithDelivery = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const webhook = yield* (yield* ApiClient).webhooks.create({
    payload: { name: "Ops", url: "https://hooks.example.test/ops", type: "generic" }
  })
  const [delivery] = yield* sql<{ id: string }>`
    insert into webhook_deliveries (event_id, event_name, event, webhook_id, next_attempt_at)
    values ('evt_1', 'incident.created', '{}'::jsonb, ${webhook.id}, now()) returning id`
  return { webhook: webhook.id, delivery: delivery!.id }
})

const deadlocks = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ deadlocks: string }>`select deadlocks from pg_stat_database where datname = current_database()`.pipe(
      Effect.map((rows) => Number(rows[0]!.deadlocks))
    )
)

it.layer(Layer.provideMerge(StateChanges.layer, TestServer()))("transaction conflicts", (it) => {
  it.effect("a deadlock victim is run again and both changes land", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const changes = yield* StateChanges
      const first = yield* client.components.create({ payload: { name: "First" } })
      const second = yield* client.components.create({ payload: { name: "Second" } })
      const locked = { a: yield* Deferred.make<void>(), b: yield* Deferred.make<void>() }
      const attempts = { a: 0, b: 0 }

      /** Locks `one`, waits until the other change holds its first row, then locks `other` and renames both. */
      const change = (name: "a" | "b", one: string, other: string) =>
        changes.commit(Effect.gen(function*() {
          attempts[name]++
          yield* sql`select id from components where id = ${one} for update`
          yield* Deferred.succeed(locked[name], undefined)
          yield* Deferred.await(locked[name === "a" ? "b" : "a"])
          yield* sql`select id from components where id = ${other} for update`
          yield* sql`update components set description = ${`by ${name}`} where id in (${one}, ${other})`
        }))

      yield* Effect.all([change("a", first.id, second.id), change("b", second.id, first.id)], {
        concurrency: "unbounded"
      })
      // One of them was chosen as the victim and ran again.
      expect(attempts.a + attempts.b).toBe(3)
      const rows = yield* sql<{ description: string }>`
        select description from components where id in (${first.id}, ${second.id})`
      // The one that ran again wrote last.
      const winner = attempts.a === 2 ? "by a" : "by b"
      expect(rows.map((row) => row.description)).toEqual([winner, winner])
    }), 30_000)

  it.effect(
    "an incident template created while an operator's change locks its components the other way is not a 500",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const [low, high] = [
          yield* client.components.create({ payload: { name: "Low" } }),
          yield* client.components.create({ payload: { name: "High" } })
        ].sort((a, b) => (a.id < b.id ? -1 : 1))
        // A writer of its own on another connection: it holds `high`, the template's create takes
        // `low` and waits for `high`, then the writer asks for `low`: PostgreSQL picks the create,
        // the first to wait, as the victim.
        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const other = yield* foreignWriter(
          ["select id from components where id = $1 for update", [high!.id]],
          holding,
          release,
          ["select id from components where id = $1 for update", [low!.id]]
        )
        yield* Deferred.await(holding)
        const created = yield* client.incidentTemplates.create({
          payload: { name: "Both", title: "Both down", message: "Down", componentIds: [low!.id, high!.id] }
        }).pipe(Effect.forkChild)
        // The create waits for `high`: then the writer closes the cycle.
        yield* waitingForLock("%from components where id = any%")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(other)
        const template = yield* Fiber.join(created)
        expect(template.componentIds).toEqual([low!.id, high!.id])
      }),
    30_000
  )

  it.effect(
    "a webhook deleted while the dispatcher records one of its deliveries is deleted, not a 500",
    () =>
      Effect.gen(function*() {
        const { delivery, webhook } = yield* webhookWithDelivery
        // The dispatcher's order (recordAttempts): the delivery, then its webhook's counters. A
        // delete that took the webhook first and then cascaded to the delivery closed the cycle.
        const recorded = yield* Deferred.make<void>()
        const counted = yield* Deferred.make<void>()
        const dispatcher = yield* foreignWriter(
          ["update webhook_deliveries set attempts = 1, status = 'failed' where id = $1", [delivery]],
          recorded,
          counted,
          ["update webhooks set consecutive_failures = consecutive_failures + 1 where id = $1", [webhook]]
        )
        yield* Deferred.await(recorded)
        const deleted = yield* Effect.forkChild(sendJson("DELETE", `/api/v1/admin/webhooks/${webhook}`))
        yield* waitingForLock("%webhook%")
        yield* Deferred.succeed(counted, undefined)
        yield* Fiber.join(dispatcher)
        expect((yield* Fiber.join(deleted)).status).toBe(204)
        expect((yield* sendJson("GET", `/api/v1/admin/webhooks/${webhook}`)).status).toBe(404)
      }),
    30_000
  )

  it.effect("a webhook's delete that a real deadlock aborts is run again and lands", () =>
    Effect.gen(function*() {
      const { delivery, webhook } = yield* webhookWithDelivery
      const before = yield* deadlocks
      // A writer of its own holds the webhook; the delete locks the delivery and waits for the
      // webhook; the writer then asks for the delivery: PostgreSQL aborts the delete, the first
      // to wait, and the writer goes on.
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const writer = yield* foreignWriter(
        ["select from webhooks where id = $1 for update", [webhook]],
        holding,
        release,
        ["select from webhook_deliveries where id = $1 for update", [delivery]]
      )
      yield* Deferred.await(holding)
      const deleted = yield* Effect.forkChild(sendJson("DELETE", `/api/v1/admin/webhooks/${webhook}`))
      yield* waitingForLock("%delete from webhooks%")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writer)
      expect((yield* Fiber.join(deleted)).status).toBe(204)
      // It was a real deadlock, and the delete ran again. PostgreSQL counts it when the victim's
      // connection next reports its statistics: within 10 s.
      expect(yield* eventually(deadlocks, (count) => count > before, 15_000)).toBeGreaterThan(before)
      expect((yield* sendJson("GET", `/api/v1/admin/webhooks/${webhook}`)).status).toBe(404)
    }), 30_000)

  it.effect(
    "an incident change that names a component deleted meanwhile leaves it out, not a 500",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const [kept, deleted] = [
          yield* client.components.create({ payload: { name: "Kept" } }),
          yield* client.components.create({ payload: { name: "Deleted" } })
        ]
        const incident = yield* client.incidents.create({
          payload: { title: "Both", message: "Down", componentIds: [kept.id, deleted.id] }
        })
        // The component's delete has begun (it holds the incident's link to it) when the update
        // reads the incident's components; the update then waits for the link and writes the
        // components it read, one of them gone by then. The fuzzer met it as a 500 (23503).
        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const remover = yield* foreignWriter(["delete from components where id = $1", [deleted.id]], holding, release)
        yield* Deferred.await(holding)
        const updated = yield* Effect.forkChild(
          sendJson("PUT", `/api/v1/admin/incidents/${incident.id}`, {
            componentStatuses: { [kept.id]: "major_outage" }
          })
        )
        yield* waitingForLock("%incident_components%")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(remover)
        const answer = yield* Fiber.join(updated)
        expect(answer.status).toBe(200)
        expect(answer.body.componentIds).toEqual([kept.id])
      }),
    30_000
  )
})
