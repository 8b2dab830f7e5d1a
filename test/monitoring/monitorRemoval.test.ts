/**
 * Deleting a monitor, or moving it to another component: its open down interval ends at that
 * moment (past downtime stays), and the components it leaves (and joins) have their status
 * decided again from the monitors they keep, as ingest decides it, with the event.
 */
import { readFileSync } from "node:fs"

import { expect, it } from "@effect/vitest"
import { Array as Arr, Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { jobIdOf } from "../../src/domain/CheckJob.js"
import { migrationsDirectory } from "../../src/persistence/Migrations.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { Uptime } from "../../src/services/monitoring/Uptime.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const hour = 3_600_000

const Stack = Layer.mergeAll(ResultIngest.layer, Uptime.layer).pipe(Layer.provideMerge(TestServer()))

/** The result of the monitor's run at or just before `at` (ingest admits runs on its slots only). */
const result = (monitorId: string, at: number, ok: boolean) =>
  checkResult(monitorId, "local", slotOf(monitorId, at), ok)

/** One minute later, one check of each monitor with the given outcome. */
const round = (outcomes: Record<string, boolean>) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    const now = yield* Clock.currentTimeMillis
    yield* (yield* ResultIngest).ingest(Object.entries(outcomes).map(([id, ok]) => result(id, now - 30, ok)))
  })

/** A component with `count` http monitors that go down on their first failure. */
const component = (count: number) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const created = yield* client.components.create({ payload: { name: `Watched ${Math.random()}` } })
    const monitors = yield* Effect.forEach(Array.from({ length: count }), () =>
      client.monitors.create({
        payload: { componentId: created.id, type: "http", url: "https://example.com", failureThreshold: 1 }
      }))
    return { component: created, monitors: monitors.map((m) => m.id) }
  })

const statusOf = (componentId: string) =>
  Effect.flatMap(ApiClient, (client) => client.components.list({ query: {} })).pipe(
    Effect.map((components) => components.find((c) => c.id === componentId)?.status)
  )

const intervalsOf = (monitorId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ componentId: string; startedAt: Date; endedAt: Date | null }>`
      select component_id, started_at, ended_at from monitor_downtime where monitor_id = ${monitorId} order by started_at`)

const statusEvents = (mark: string) =>
  Effect.map(
    outboxSince(mark),
    (rows) => rows.filter((e) => e.event === "component.status_changed").map((e) => e.payload)
  )

/** Two hours on, the hourly rollups wholly after `from`: what the component lost once the monitor was gone. */
const hoursAfter = (componentId: string, from: number) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("2 hours")
    yield* (yield* Uptime).refresh
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ observedSeconds: number; downtimeSeconds: number }>`
      select observed_seconds, downtime_seconds from uptime_rollups
      where component_id = ${componentId} and granularity = 'hour' and bucket_start >= ${new Date(
      Math.ceil(from / hour) * hour
    )}`
  })

it.layer(Stack)("removing and moving monitors", (it) => {
  it.effect("deleting a down monitor ends its interval then; the component follows the monitors it keeps", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component: checkout, monitors: [down, up] } = yield* component(2)
      yield* round({ [down!]: false, [up!]: true })
      expect(yield* statusOf(checkout.id)).toBe("partial_outage")

      const mark = yield* outboxMark
      const deletedAt = yield* Clock.currentTimeMillis
      yield* client.monitors.remove({ params: { id: down! } })

      // Past downtime stays, closed at the deletion.
      const intervals = yield* intervalsOf(down!)
      expect(intervals).toHaveLength(1)
      expect(intervals[0]!.endedAt).toEqual(new Date(deletedAt))
      expect(yield* statusOf(checkout.id)).toBe("operational")
      expect(yield* statusEvents(mark)).toEqual([
        { id: checkout.id, name: checkout.name, previousStatus: "partial_outage", status: "operational" }
      ])

      // The monitor left, up, is all the component has: no downtime from then on.
      yield* round({ [up!]: true })
      const after = yield* hoursAfter(checkout.id, deletedAt)
      expect(after.length).toBeGreaterThan(0)
      expect(after.every((bucket) => bucket.observedSeconds > 0 && bucket.downtimeSeconds === 0)).toBe(true)
    }))

  it.effect("deleting the last monitor of a component it put in an outage makes it operational again", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component: search, monitors: [only] } = yield* component(1)
      yield* round({ [only!]: false })
      expect(yield* statusOf(search.id)).toBe("major_outage")

      const mark = yield* outboxMark
      const deletedAt = yield* Clock.currentTimeMillis
      yield* client.monitors.remove({ params: { id: only! } })
      expect((yield* intervalsOf(only!)).map((i) => i.endedAt)).toEqual([new Date(deletedAt)])
      expect(yield* statusOf(search.id)).toBe("operational")
      expect(yield* statusEvents(mark)).toEqual([
        { id: search.id, name: search.name, previousStatus: "major_outage", status: "operational" }
      ])
      // Nothing observes it any more: its status history decides, and it is operational.
      const after = yield* hoursAfter(search.id, deletedAt)
      expect(after.length).toBeGreaterThan(0)
      expect(after.every((bucket) => bucket.downtimeSeconds === 0)).toBe(true)
    }))

  it.effect("a status an operator set by hand stays when the monitors go", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component: mail, monitors: [first, second] } = yield* component(2)
      yield* round({ [first!]: false, [second!]: false })
      expect(yield* statusOf(mail.id)).toBe("major_outage")
      yield* client.components.setStatus({ params: { id: mail.id }, payload: { status: "degraded" } })

      const mark = yield* outboxMark
      const deletedAt = yield* Clock.currentTimeMillis
      yield* client.monitors.remove({ params: { id: first! } })
      yield* client.monitors.remove({ params: { id: second! } })
      // The intervals end all the same; the status is the operator's.
      expect((yield* intervalsOf(first!)).map((i) => i.endedAt)).toEqual([new Date(deletedAt)])
      expect((yield* intervalsOf(second!)).map((i) => i.endedAt)).toEqual([new Date(deletedAt)])
      expect(yield* statusOf(mail.id)).toBe("degraded")
      expect(yield* statusEvents(mark)).toEqual([])
    }))

  it.effect("moving a down monitor ends its interval on the old component and goes on on the new one", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component: from, monitors: [moving, staying] } = yield* component(2)
      const { component: to, monitors: [there] } = yield* component(1)
      yield* round({ [moving!]: false, [staying!]: true, [there!]: true })
      expect(yield* statusOf(from.id)).toBe("partial_outage")
      expect(yield* statusOf(to.id)).toBe("operational")

      const mark = yield* outboxMark
      const movedAt = yield* Clock.currentTimeMillis
      const moved = yield* client.monitors.update({ params: { id: moving! }, payload: { componentId: to.id } })
      expect(moved).toMatchObject({ componentId: to.id, state: "down" })

      // Still failing: its downtime now counts for the new component, from the move on.
      const intervals = yield* intervalsOf(moving!)
      expect(intervals.map(({ componentId, endedAt }) => ({ componentId, endedAt }))).toEqual([
        { componentId: from.id, endedAt: new Date(movedAt) },
        { componentId: to.id, endedAt: null }
      ])
      expect(intervals[1]!.startedAt).toEqual(new Date(movedAt))
      expect(yield* statusOf(from.id)).toBe("operational")
      expect(yield* statusOf(to.id)).toBe("partial_outage")
      expect(yield* statusEvents(mark)).toEqual(expect.arrayContaining([
        { id: from.id, name: from.name, previousStatus: "partial_outage", status: "operational" },
        { id: to.id, name: to.name, previousStatus: "operational", status: "partial_outage" }
      ]))
      expect(yield* statusEvents(mark)).toHaveLength(2)

      // Ingest goes on from there: the monitor's recovery closes the new component's interval.
      yield* round({ [moving!]: true, [staying!]: true, [there!]: true })
      expect((yield* intervalsOf(moving!)).every((i) => i.endedAt !== null)).toBe(true)
      expect(yield* statusOf(to.id)).toBe("operational")
      const after = yield* hoursAfter(from.id, movedAt)
      expect(after.length).toBeGreaterThan(0)
      expect(after.every((bucket) => bucket.downtimeSeconds === 0)).toBe(true)
    }))

  it.effect("editing a monitor without moving it leaves its interval and the status alone", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { component: api, monitors: [down] } = yield* component(1)
      yield* round({ [down!]: false })
      const mark = yield* outboxMark
      yield* client.monitors.update({ params: { id: down! }, payload: { componentId: api.id, intervalSeconds: 120 } })
      expect((yield* intervalsOf(down!)).map((i) => i.endedAt)).toEqual([null])
      expect(yield* statusOf(api.id)).toBe("major_outage")
      expect(yield* statusEvents(mark)).toEqual([])
    }))

  it.effect("ingest, a delete, a move and a component's deletion at once leave no interval on a component its monitor left", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      yield* Effect.forEach(Array.from({ length: 5 }), () =>
        Effect.gen(function*() {
          const { component: first, monitors: [deleted, moved, left] } = yield* component(3)
          const { component: second, monitors: [gone] } = yield* component(1)
          yield* round({ [deleted!]: false, [moved!]: false, [left!]: false, [gone!]: false })
          const now = yield* Clock.currentTimeMillis
          const ingest = yield* ResultIngest
          yield* Effect.all([
            ingest.ingest([deleted!, moved!, left!, gone!].map((id) => result(id, now + 30, true))),
            client.monitors.remove({ params: { id: deleted! } }),
            client.monitors.update({ params: { id: moved! }, payload: { componentId: second.id } }).pipe(
              Effect.catchTag("NotFound", () => Effect.void) // the component went first
            ),
            client.components.remove({ params: { id: second.id } })
          ], { concurrency: "unbounded", discard: true })
          // No interval left open on a component its monitor is not on.
          const stray = yield* sql<{ count: number }>`
            select count(*)::int as count from monitor_downtime d
            where d.ended_at is null and d.component_id in (${first.id}, ${second.id})
              and not exists (select 1 from monitors m where m.id = d.monitor_id and m.component_id = d.component_id)`
          expect(stray[0]!.count).toBe(0)
        }), { discard: true })
    }))

  it.effect("migration 0015 ends the intervals that monitors deleted earlier left open", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { component: legacy, monitors: [kept] } = yield* component(1)
      yield* round({ [kept!]: false })
      const now = yield* Clock.currentTimeMillis
      // Deleted by the old code: the rows stayed, the monitors did not.
      const [checked, unchecked] = [`gone-${Math.random()}`, `gone-${Math.random()}`]
      yield* sql`insert into monitor_downtime ${
        sql.insert(
          Arr.map([checked, unchecked] as const, (monitorId) => ({
            monitorId,
            componentId: legacy.id,
            startedAt: new Date(now - hour)
          }))
        )
      }`
      yield* sql`insert into check_results ${
        sql.insert(Arr.map([now - 50 * 60_000, now - 40 * 60_000] as const, (at) => ({
          jobId: jobIdOf(checked, at),
          region: "local",
          monitorId: checked,
          probe: "local-1",
          scheduledAt: new Date(at),
          checkedAt: new Date(at),
          ok: false,
          durationMs: 1
        })))
      }`
      yield* sql.unsafe(readFileSync(`${migrationsDirectory}/0015_close_orphan_downtime.sql`, "utf8"))
      expect((yield* intervalsOf(checked)).map((i) => i.endedAt)).toEqual([new Date(now - 40 * 60_000)])
      expect((yield* intervalsOf(unchecked)).map((i) => i.endedAt)).toEqual([new Date(now - hour)])
      // A monitor that still exists keeps its open interval.
      expect((yield* intervalsOf(kept!)).map((i) => i.endedAt)).toEqual([null])
    }))
})
