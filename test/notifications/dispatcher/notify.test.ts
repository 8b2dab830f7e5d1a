/**
 * A dispatcher in another instance learns of a commit through PostgreSQL LISTEN/NOTIFY, not only
 * by its poll (after 10 s without a look): here its clock (the suite's TestClock) stands still,
 * so the poll never runs and only the notification can wake it.
 */
import { expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { Database } from "../../../src/persistence/Database.js"
import { Dispatcher } from "../../../src/workers/Dispatcher.js"
import { eventually } from "../../support/Eventually.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { TestDatabaseUrl } from "../../support/TestDatabase.js"
import { sendJson, TestServer } from "../../support/TestServer.js"

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    )
  )

/** Sessions of the test database whose last statement was a LISTEN: the instances that listen. */
const listeners = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<
      { n: number }
    >`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
    (rows) => rows[0]!.n
  ))

it.layer(TestServer())("dispatcher across instances", (it) => {
  it.effect("a dispatcher of another instance delivers a commit it was told of by NOTIFY, its poll standing still", () =>
    Effect.gen(function*() {
      const before = yield* listeners
      const url = yield* TestDatabaseUrl
      // The API's instance has no dispatcher; this second instance (its own pool, StateChanges
      // and fibers, on the TestClock) has one.
      yield* Layer.build(Layer.fresh(Dispatcher.pipe(
        Layer.provide(Database),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url })))
      )))
      yield* eventually(listeners, (n) => n > before)

      const target = yield* receiver(answerWith(200))
      yield* post("/api/v1/admin/webhooks", { name: "elsewhere", url: target.url, type: "generic" })
      for (const title of ["First", "Second"]) {
        yield* post("/api/v1/admin/incidents", { title, message: "m" })
        yield* eventually(Effect.sync(() => target.received.length), (n) => n >= (title === "First" ? 1 : 2))
      }
      expect(target.received.map((request) => JSON.parse(request.body).data.title)).toEqual(["First", "Second"])
    }))
})
