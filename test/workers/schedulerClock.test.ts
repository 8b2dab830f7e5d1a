/**
 * The check scheduler on the TestClock: how it follows monitor edits and deletions, skips a
 * monitor it cannot turn into a job, and catches up after a pause. It publishes through the
 * in-process transport, wrapped to record every job handed to it and to hold a publish (a
 * scheduler stalled mid-tick). The expected jobs come from the monitors the test made, the
 * clock, and the slot rule (`slotAt`): never from what the scheduler stored or sent.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { MonitorId } from "../../src/domain/Monitor.js"
import { slotAt, tickEvery } from "../../src/workers/CheckScheduler.js"
import { eventually, realPause, stepUntil } from "../support/Eventually.js"
import { startScheduler } from "../support/RecordingScheduler.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const second = 1_000

/** Every slot of `monitorId` from the one at or before `from` to the last at or before `to`. */
const slotsBetween = (monitorId: string, intervalSeconds: number, from: number, to: number) => {
  const slots: Array<number> = []
  for (let at = slotAt(monitorId, intervalSeconds * second, from); at <= to; at += intervalSeconds * second) {
    slots.push(at)
  }
  return slots
}

/** Moves the TestClock to `offsetMs` past the next slot of `monitorId`, and returns that slot. */
const justAfterNextSlot = (monitorId: string, intervalSeconds: number, offsetMs = second) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const slot = slotAt(monitorId, intervalSeconds * second, now) + intervalSeconds * second
    yield* TestClock.adjust(slot + offsetMs - now)
    return slot
  })

const advanceTo = (at: number) => Effect.flatMap(Clock.currentTimeMillis, (now) => TestClock.adjust(at - now))

const Stack = TestServer()

/** A component with `count` http monitors of `intervalSeconds`, toward the discard port (no probe runs here). */
const monitors = (count: number, intervalSeconds: number) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name: `Scheduled ${Math.random()}` } })
    return yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
      client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: `http://127.0.0.1:9/m${i}`,
          intervalSeconds,
          timeoutMs: 1000
        }
      }))
  })

it.layer(Stack, { timeout: "120 seconds" })("check scheduler on the TestClock", (it) => {
  it.effect("an edited target, then an edited interval, take effect at once; the old definition is not published again", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const [monitor] = yield* monitors(1, 30)
      const id = monitor!.id
      const a = yield* justAfterNextSlot(id, 30)
      const scheduler = yield* startScheduler
      // Started 1 s after slot `a`: that slot runs at once, the next 30 s later.
      yield* advanceTo(a + 31 * second)
      expect(scheduler.jobsOf(id)).toEqual([
        { url: "http://127.0.0.1:9/m0", intervalSeconds: 30, scheduledAt: a },
        { url: "http://127.0.0.1:9/m0", intervalSeconds: 30, scheduledAt: a + 30 * second }
      ])

      // A new target: the current slot runs again toward it, within a reload (5 s), well before the next slot.
      yield* client.monitors.update({ params: { id }, payload: { url: "http://127.0.0.1:9/moved" } })
      const moved = () => scheduler.jobsOf(id).some((job) => job.url.endsWith("/moved"))
      expect(yield* stepUntil(moved)).toBe(true)
      yield* advanceTo(a + 61 * second)

      // A longer interval: its slots are every other one of the 30 s slots, from the current one.
      const editedAt = yield* Clock.currentTimeMillis
      yield* client.monitors.update({ params: { id }, payload: { intervalSeconds: 60 } })
      expect(yield* stepUntil(() => scheduler.jobsOf(id).some((job) => job.intervalSeconds === 60))).toBe(true)
      const b = slotAt(id, 60 * second, editedAt)
      yield* advanceTo(b + 121 * second)

      expect(scheduler.jobsOf(id)).toEqual([
        { url: "http://127.0.0.1:9/m0", intervalSeconds: 30, scheduledAt: a },
        { url: "http://127.0.0.1:9/m0", intervalSeconds: 30, scheduledAt: a + 30 * second },
        { url: "http://127.0.0.1:9/moved", intervalSeconds: 30, scheduledAt: a + 30 * second },
        { url: "http://127.0.0.1:9/moved", intervalSeconds: 30, scheduledAt: a + 60 * second },
        { url: "http://127.0.0.1:9/moved", intervalSeconds: 60, scheduledAt: b },
        { url: "http://127.0.0.1:9/moved", intervalSeconds: 60, scheduledAt: b + 60 * second },
        { url: "http://127.0.0.1:9/moved", intervalSeconds: 60, scheduledAt: b + 120 * second }
      ])
    }))

  it.effect("a deleted monitor is no longer scheduled; the others keep every slot", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const [deleted, kept] = yield* monitors(2, 30)
      const a = yield* justAfterNextSlot(deleted!.id, 30)
      const startedAt = yield* Clock.currentTimeMillis
      const scheduler = yield* startScheduler
      yield* advanceTo(a + 31 * second)

      yield* client.monitors.remove({ params: { id: deleted!.id } })
      // Created after the deletion: once the scheduler publishes it, it has reloaded past the deletion.
      const [marker] = yield* monitors(1, 30)
      expect(yield* stepUntil(() => scheduler.jobsOf(marker!.id).length > 0)).toBe(true)
      yield* advanceTo(a + 181 * second)
      const end = yield* Clock.currentTimeMillis

      expect(scheduler.jobsOf(deleted!.id).map((job) => job.scheduledAt)).toEqual([a, a + 30 * second])
      expect(scheduler.jobsOf(kept!.id).map((job) => job.scheduledAt)).toEqual(
        slotsBetween(kept!.id, 30, startedAt, end)
      )
      const markerSlots = scheduler.jobsOf(marker!.id).map((job) => job.scheduledAt)
      expect(markerSlots).toEqual(slotsBetween(marker!.id, 30, markerSlots[0]!, end))
    }))

  it.effect("monitor rows that are no valid check are skipped and logged once; the others run; fixed, one runs", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const [valid] = yield* monitors(1, 30)
      // Written behind the API's back (an old row, a manual fix): an empty target is no check.
      const [row] = yield* sql<{ id: string }>`
        insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                              failure_threshold)
        values (${valid!.componentId}, 'http', '', 30, 1000, 200, 1) returning id`
      const invalid = MonitorId.make(row!.id)
      const x = yield* justAfterNextSlot(invalid, 30)
      const startedAt = yield* Clock.currentTimeMillis
      const scheduler = yield* startScheduler
      // Worse, one that does not even read as a monitor (its regions are not a list), added meanwhile.
      // (Removed afterwards: the API cannot list it.)
      const [unreadable] = yield* Effect.acquireRelease(
        sql<{ id: string }>`
          insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                                failure_threshold, regions)
          values (${valid!.componentId}, 'http', 'http://127.0.0.1:9/', 30, 1000, 200, 1, '"eu-west"'::jsonb)
          returning id`,
        ([row]) => sql`delete from monitors where id = ${row!.id}`.pipe(Effect.orDie)
      )
      // Thirty seconds, six reloads: each reported once, neither scheduled.
      yield* stepUntil(() => false, 30)
      for (const id of [invalid, unreadable!.id]) {
        expect(scheduler.warnings().filter((w) => w.monitorId === id).map((w) => w.message)).toEqual([
          "monitor is not a valid check; not scheduled"
        ])
        expect(scheduler.jobsOf(id)).toEqual([])
      }

      // Fixed 1 s after one of its slots: it runs at that slot, within a reload, then at every slot.
      const fixedAt = yield* Clock.currentTimeMillis
      expect(fixedAt).toBe(x + 31 * second)
      yield* client.monitors.update({ params: { id: invalid }, payload: { url: "http://127.0.0.1:9/fixed" } })
      expect(yield* stepUntil(() => scheduler.jobsOf(invalid).length > 0)).toBe(true)
      yield* advanceTo(x + 121 * second)
      const end = yield* Clock.currentTimeMillis

      expect(scheduler.jobsOf(valid!.id).map((job) => job.scheduledAt)).toEqual(
        slotsBetween(valid!.id, 30, startedAt, end)
      )
      expect(scheduler.jobsOf(invalid)).toEqual(
        [x + 30 * second, x + 60 * second, x + 90 * second, x + 120 * second].map((scheduledAt) => ({
          url: "http://127.0.0.1:9/fixed",
          intervalSeconds: 30,
          scheduledAt
        }))
      )
      expect(scheduler.warnings().filter((w) => w.monitorId === invalid)).toHaveLength(1)
      expect(scheduler.jobsOf(unreadable!.id)).toEqual([])
    }))

  it.effect("behind by several slots, it publishes only each monitor's latest slot, then keeps every slot", () =>
    Effect.gen(function*() {
      const [fast, slow] = [(yield* monitors(1, 10))[0]!.id, (yield* monitors(1, 60))[0]!.id]
      const startedAt = yield* Clock.currentTimeMillis
      const scheduler = yield* startScheduler

      // Stalled inside a tick (a long pause) for five minutes: 30 slots of one, 5 of the other.
      yield* scheduler.gate.close
      yield* TestClock.adjust(tickEvery)
      const stalledAt = yield* Clock.currentTimeMillis
      const ticksBefore = scheduler.ticks()
      yield* TestClock.adjust("5 minutes")
      expect(scheduler.ticks()).toBe(ticksBefore)
      // The stalled tick finishes; the next one, a tick on, finds every monitor behind.
      yield* scheduler.gate.open
      yield* eventually(Effect.sync(() => scheduler.ticks()), (n) => n > ticksBefore)
      yield* realPause(50)
      yield* TestClock.adjust(tickEvery)
      const resumedAt = yield* Clock.currentTimeMillis
      expect(yield* eventually(Effect.sync(() => scheduler.ticks()), (n) => n > ticksBefore + 1)).toBe(ticksBefore + 2)
      // From there on, every slot again.
      yield* TestClock.adjust("2 minutes")
      const end = yield* Clock.currentTimeMillis

      // The slots due before the stall (the stalled tick held them), then the latest slot at the
      // resumption, then every slot: none of the slots missed meanwhile.
      for (const [id, interval] of [[fast, 10], [slow, 60]] as const) {
        expect(scheduler.jobsOf(id).map((job) => job.scheduledAt)).toEqual([
          ...slotsBetween(id, interval, startedAt, stalledAt),
          ...slotsBetween(id, interval, resumedAt, end)
        ])
      }
      expect(slotsBetween(fast, 10, stalledAt, resumedAt).length).toBeGreaterThan(25)
    }))
})
