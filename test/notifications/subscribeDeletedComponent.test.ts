/**
 * A subscription to a component deleted while the request is being written: the request checked
 * the component (still there), then its insert meets the deleted row at the foreign key. The
 * answer is the 400 of an unknown component, not a 500, and nothing is stored.
 */
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"

import { eventually } from "../support/Eventually.js"
import { ownConnection } from "../support/TableLock.js"
import { sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("subscribing to a component deleted meanwhile", (it) => {
  it.effect("is a 400 naming componentIds, and stores no subscriber", () =>
    Effect.gen(function*() {
      const created = yield* sendJson("POST", "/api/v1/admin/components", { name: "Going away" })
      const componentId = created.body.id as string
      const sql = yield* ownConnection
      const observer = yield* ownConnection

      // The deletion holds the component's row, uncommitted, until the request waits for it.
      const deleted = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const deletion = yield* sql.withTransaction(
        sql`delete from components where id = ${componentId}`.pipe(
          Effect.andThen(Deferred.succeed(deleted, undefined)),
          Effect.andThen(Deferred.await(commit))
        )
      ).pipe(Effect.forkChild)
      yield* Deferred.await(deleted)

      const request = yield* sendJson("POST", "/api/v1/subscribe", {
        email: "late@example.test",
        componentIds: [componentId]
      }).pipe(Effect.forkChild)
      // The request's insert waits on the deleted row's lock at its foreign key check.
      yield* eventually(
        observer<{ waiting: number }>`
          select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
        (rows) => rows[0]!.waiting > 0
      )
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(deletion)

      const answer = yield* Fiber.join(request)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ _tag: "BadRequest", message: expect.stringContaining("componentIds") })
      const stored = yield* observer`select 1 from subscribers where email = 'late@example.test'`
      expect(stored).toHaveLength(0)
    }))
})
