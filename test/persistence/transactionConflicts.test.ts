/**
 * Two changes locking the same rows in opposite orders deadlock in PostgreSQL, which aborts one
 * of them: `StateChanges.commit` runs the victim again, so both changes land and neither caller
 * sees a 500. A real deadlock on the real database, sequenced with Deferreds.
 */
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"

import { StateChanges } from "../../src/services/StateChanges.js"
import { eventually } from "../support/Eventually.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

it.layer(Layer.provideMerge(StateChanges.Default, TestServer()))("transaction conflicts", (it) => {
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

  it.scoped(
    "an incident template created while an operator's change locks its components the other way is not a 500",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const sql = yield* SqlClient.SqlClient
        const [low, high] = [
          yield* client.components.create({ payload: { name: "Low" } }),
          yield* client.components.create({ payload: { name: "High" } })
        ].sort((a, b) => (a.id < b.id ? -1 : 1))
        // A writer of its own on another connection: it holds `high`, the template's create takes
        // `low` and waits for `high`, then the writer asks for `low`: PostgreSQL picks the create,
        // the first to wait, as the victim.
        // Its own connection, out of the pool: a transaction by hand.
        const writer = yield* sql.reserve
        const run = (statement: string, params: ReadonlyArray<unknown> = []) =>
          writer.execute(statement, params as Array<unknown>, undefined)
        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const other = yield* Effect.gen(function*() {
          yield* run("begin")
          yield* run("select id from components where id = $1 for update", [high!.id])
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(release)
          yield* run("select id from components where id = $1 for update", [low!.id])
          yield* run("commit")
        }).pipe(Effect.fork)
        yield* Deferred.await(holding)
        const created = yield* client.incidentTemplates.create({
          payload: { name: "Both", title: "Both down", message: "Down", componentIds: [low!.id, high!.id] }
        }).pipe(Effect.fork)
        // The create waits for `high`: then the writer closes the cycle.
        yield* eventually(
          sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_stat_activity
          where wait_event_type = 'Lock' and query like '%from components where id = any%'`,
          (rows) => rows[0]!.waiting > 0,
          10_000
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(other)
        const template = yield* Fiber.join(created)
        expect(template.componentIds).toEqual([low!.id, high!.id])
      }),
    30_000
  )
})
