/**
 * Housekeeping deletes audit entries older than AUDIT_RETENTION_DAYS (here 30), in batches, and
 * keeps the younger ones; nothing else deletes them.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Housekeeping, housekeepingInterval } from "../../src/workers/Housekeeping.js"
import { eventually } from "../support/Eventually.js"
import { sendJson, TestServer } from "../support/TestServer.js"

const Stack = Housekeeping.pipe(Layer.provideMerge(TestServer({ AUDIT_RETENTION_DAYS: "30" })))

const countOlderThan = (days: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ count: number }>`
        select count(*)::int as count from audit_log where at < now() - make_interval(days => ${days})`,
      (rows) => rows[0]!.count
    ))

it.layer(Stack)("audit log retention", (it) => {
  it.effect("a pass deletes the entries past AUDIT_RETENTION_DAYS, however many, and keeps the others", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      expect((yield* sendJson("POST", "/api/v1/admin/components", { name: "Recent" })).status).toBe(201)
      // More than one batch of old entries (housekeeping deletes 500 at a time), and one just inside the period.
      yield* sql`
        insert into audit_log (at, actor_type, actor_name, operation, target_type, target_id, target_name)
        select now() - interval '31 days' - make_interval(mins => n), 'system', 'old', 'components.create',
               'component', 'old-' || n, 'Old ' || n
        from generate_series(1, 1234) as n`
      yield* sql`
        insert into audit_log (at, actor_type, actor_name, operation, target_type, target_id, target_name)
        values (now() - interval '29 days', 'system', 'kept', 'components.create', 'component', 'kept', 'Kept')`
      expect(yield* countOlderThan(30)).toBe(1234)
      const total = (yield* sql<{ count: number }>`select count(*)::int as count from audit_log`)[0]!.count

      yield* TestClock.adjust(housekeepingInterval)
      yield* eventually(countOlderThan(30), (count) => count === 0, 5_000)
      const left = yield* sql<{ targetName: string }>`select target_name from audit_log order by at`
      expect(left).toHaveLength(total - 1234)
      expect(left[0]!.targetName).toBe("Kept")
      expect(left.map((row) => row.targetName)).toContain("Recent")
    }))
})
