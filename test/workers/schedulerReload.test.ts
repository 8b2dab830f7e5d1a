/**
 * The active scheduler's reload every 5 s outlives a failed one: with its database away for a
 * moment (new connections refused behind a loopback proxy, its pooled connections terminated)
 * while the connection holding its lock lives on, the reload fails, is logged, and the next one
 * after the database is back picks up a monitor created meanwhile, in the same leadership.
 */
import { PgClient } from "@effect/sql-pg"
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted, String } from "effect"
import { SqlClient } from "effect/sql"

import { slotAt } from "../../src/workers/CheckScheduler.js"
import { realPause, stepUntil } from "../support/Eventually.js"
import { startSchedulerWith } from "../support/RecordingScheduler.js"
import { tcpProxy } from "../support/TcpProxy.js"
import { TestDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const minute = 60_000
/** How the test tells the scheduler's connections from its own. */
const applicationName = "scheduler-under-test"

it.layer(TestServer(), { timeout: "120 seconds" })("the scheduler's reload", (it) => {
  it.effect("a reload that fails is a warning, and the next one picks up a new monitor in the same leadership", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const component = yield* client.components.create({ payload: { name: "Reloads" } })
      const create = (path: string) =>
        client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: `http://127.0.0.1:9/${path}`,
            intervalSeconds: 60,
            timeoutMs: 1000
          }
        })
      const before = yield* create("before")

      const url = new URL(yield* TestDatabaseUrl)
      const proxy = yield* tcpProxy(Number(url.port || 5432), url.hostname)
      url.host = `127.0.0.1:${proxy.port}`
      const scheduler = yield* startSchedulerWith({
        database: PgClient.layer({
          url: Redacted.make(url.toString()),
          applicationName,
          transformQueryNames: String.camelToSnake,
          transformResultNames: String.snakeToCamel
        }).pipe(Layer.orDie)
      })
      expect(scheduler.jobsOf(before.id)).toHaveLength(1)
      /** The backend holding the scheduler's lock (the only advisory lock its connections hold). */
      const lockHolder = sql<{ pid: number }>`
        select a.pid from pg_stat_activity a join pg_locks l on l.pid = a.pid and l.locktype = 'advisory' and l.granted
        where a.datname = current_database() and a.application_name = ${applicationName}`
      const [holder] = yield* lockHolder

      // The database away from the scheduler's pool: new connections refused, the pooled ones
      // terminated; the one holding the lock (and its heartbeat) lives on.
      yield* Effect.sync(() => proxy.refuse())
      const terminated = yield* sql<{ pid: number }>`
        select pid, pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = ${applicationName} and pid <> ${holder!.pid}`
      expect(terminated.length).toBeGreaterThan(0)
      yield* realPause(100)
      const failed = () =>
        scheduler.warnings().some((line) => line.message === "Reloading the monitors failed; retrying in 5 s")
      yield* stepUntil(failed, 10)

      // Back: a monitor created now is published within a reload, at its current slot.
      yield* Effect.promise(() => proxy.restore())
      const after = yield* create("after")
      const createdAt = yield* Clock.currentTimeMillis
      yield* stepUntil(() => scheduler.jobsOf(after.id).length > 0, 15)
      const now = yield* Clock.currentTimeMillis
      const [job] = scheduler.jobsOf(after.id)
      expect(job?.url).toBe("http://127.0.0.1:9/after")
      expect(job?.scheduledAt).toBe(slotAt(after.id, minute, job!.scheduledAt))
      expect(job!.scheduledAt).toBeGreaterThanOrEqual(slotAt(after.id, minute, createdAt))
      expect(job!.scheduledAt).toBeLessThanOrEqual(now)
      expect(failed()).toBe(true)

      // The same leadership throughout: the lock on the same connection, no take-over.
      expect(yield* lockHolder).toEqual([holder])
      expect(scheduler.lines().filter((line) => line.message.startsWith("Scheduler active"))).toHaveLength(1)
      expect(scheduler.warnings().filter((line) => line.message.startsWith("Scheduler stopped"))).toEqual([])
    }))
})
