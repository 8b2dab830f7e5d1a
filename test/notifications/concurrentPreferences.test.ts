/**
 * Two saves of one subscriber's preferences at the same time: the last one wins whole, never a
 * mix of both choices. A transaction of the test's own holds the subscriber's row while both
 * saves, posted through the real preferences form, queue behind it; PostgreSQL's own view of who
 * waits for a lock says when both are waiting.
 */
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"

import { eventually } from "../support/Eventually.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

/** Posts the preferences form as the page does; answers the status. */
const save = (email: string, token: string, componentIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const fields = [["email", email], ["token", token], ...componentIds.map((id) => ["componentIds", id]), [
      "action",
      "save"
    ]]
    const response = yield* client.execute(
      HttpClientRequest.post("/subscription").pipe(
        HttpClientRequest.bodyText(new URLSearchParams(fields).toString(), "application/x-www-form-urlencoded")
      )
    )
    return response.status
  }).pipe(Effect.scoped)

/** The subscriber's components, sorted. */
const chosen = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ componentId: string }>`
      select sc.component_id from subscriber_components sc join subscribers s on s.id = sc.subscriber_id
      where s.email = ${email} order by sc.component_id`).pipe(
      Effect.map((rows) => rows.map((row) => row.componentId))
    )

/** Waits until `count` connections of the app wait for a lock in a statement on subscribers. */
const waitingOnSubscribers = (count: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    eventually(
      sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and datname = current_database() and query like '%subscribers%'`,
      (rows) => rows[0]!.waiting >= count,
      10_000
    ))

it.layer(TestServer())("concurrent preference saves", (it) => {
  it.effect("two saves of one subscriber's components: the last one wins whole", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const [api, web, search] = yield* Effect.forEach(
        ["API", "Web", "Search"],
        (name) => client.components.create({ payload: { name } })
      )
      const email = "racing@example.test"
      const token = "racing-unsubscribe-token-0123456789abcdef"
      yield* sql`
        with s as (
          insert into subscribers (email, unsubscribe_token, verified_at, all_components, page_id)
          values (${email}, ${token}, now(), false, (select id from status_pages where is_default)) returning id)
        insert into subscriber_components (subscriber_id, component_id) select s.id, ${search!.id} from s`

      for (let round = 0; round < 3; round++) {
        // The test's own transaction holds the subscriber's row: both saves queue behind it.
        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.gen(function*() {
          const own = yield* sql.reserve
          const run = (statement: string, params: ReadonlyArray<unknown> = []) =>
            own.execute(statement, params as Array<unknown>, undefined)
          yield* run("begin")
          yield* run("select id from subscribers where email = $1 for update", [email])
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(release)
          yield* run("commit")
        }).pipe(Effect.scoped, Effect.forkChild)
        yield* Deferred.await(holding)

        const saves = yield* Effect.all([save(email, token, [api!.id]), save(email, token, [web!.id])], {
          concurrency: "unbounded"
        }).pipe(Effect.forkChild)
        yield* waitingOnSubscribers(2)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        expect(yield* Fiber.join(saves)).toEqual([200, 200])

        // One choice, whichever came last: not both, not what was there before.
        const after = yield* chosen(email)
        expect([[api!.id], [web!.id]], JSON.stringify(after)).toContainEqual(after)
        // Back to the starting choice for the next round.
        expect(yield* save(email, token, [search!.id])).toBe(200)
      }
    }), 60_000)
})
