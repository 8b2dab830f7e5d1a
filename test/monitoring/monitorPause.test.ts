/**
 * Pausing a monitor: its open down interval ends, its regions' findings are forgotten, its
 * component's status is decided again without it, the scheduler leaves it out and ingest ignores
 * its late results. Resuming puts it back, `unknown` until checked again.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { MonitorsRepo } from "../../src/persistence/MonitorsRepo.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const Stack = Layer.mergeAll(ResultIngest.layer, MonitorsRepo.layer).pipe(Layer.provideMerge(TestServer()))

/** One minute later, one check of the monitor with the given outcome. */
const checkNow = (monitorId: string, ok: boolean) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 minute")
    const now = yield* Clock.currentTimeMillis
    yield* (yield* ResultIngest).ingest([checkResult(monitorId, "local", slotOf(monitorId, now - 30), ok)])
  })

const statusOf = (componentId: string) =>
  Effect.flatMap(ApiClient, (client) => client.components.list({ query: {} })).pipe(
    Effect.map((components) => components.find((c) => c.id === componentId)?.status)
  )

it.layer(Stack)("pausing monitors", (it) => {
  it.effect("a paused monitor stops counting: its outage ends, late results are ignored, resume starts afresh", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const component = yield* client.components.create({ payload: { name: "Paused" } })
      const monitor = yield* client.monitors.create({
        payload: { componentId: component.id, type: "http", url: "https://example.com", failureThreshold: 1 }
      })
      expect(monitor.paused).toBe(false)
      yield* checkNow(monitor.id, false)
      expect(yield* statusOf(component.id)).toBe("major_outage")

      const mark = yield* outboxMark
      const paused = yield* client.monitors.pause({ params: { id: monitor.id } })
      expect(paused).toMatchObject({ paused: true, state: "unknown", regionStates: [] })
      expect(yield* statusOf(component.id)).toBe("operational")
      const events = (yield* outboxSince(mark)).filter((e) => e.event === "component.status_changed")
      expect(events.map((e) => e.payload)).toMatchObject([{ previousStatus: "major_outage", status: "operational" }])
      const open = yield* sql`select 1 from monitor_downtime where monitor_id = ${monitor.id} and ended_at is null`
      expect(open).toHaveLength(0)
      // Pausing again changes nothing.
      expect(yield* client.monitors.pause({ params: { id: monitor.id } })).toMatchObject({ paused: true })

      // The scheduler's reload leaves it out; a result still in flight is not stored and moves nothing.
      const scheduled = yield* Effect.flatMap(MonitorsRepo, (repo) => repo.findEach())
      expect(scheduled.map((m) => m.id)).not.toContain(monitor.id)
      const storedBefore = yield* sql<
        { n: number }
      >`select count(*)::int as n from check_results where monitor_id = ${monitor.id}`
      yield* checkNow(monitor.id, false)
      const storedAfter = yield* sql<
        { n: number }
      >`select count(*)::int as n from check_results where monitor_id = ${monitor.id}`
      expect(storedAfter[0]!.n).toBe(storedBefore[0]!.n)
      expect((yield* client.monitors.update({ params: { id: monitor.id }, payload: {} })).state).toBe("unknown")
      expect(yield* statusOf(component.id)).toBe("operational")

      const resumedAt = yield* Clock.currentTimeMillis
      const resumed = yield* client.monitors.resume({ params: { id: monitor.id } })
      expect(resumed).toMatchObject({ paused: false, state: "unknown" })
      const rescheduled = yield* Effect.flatMap(MonitorsRepo, (repo) => repo.findEach())
      const entry = rescheduled.find((m) => m.id === monitor.id)
      expect(entry !== undefined && Result.isSuccess(entry.decode())).toBe(true)
      // A failure of a run from before the resume (before the slot in progress then, less the
      // skew), delivered after it, is refused.
      yield* TestClock.adjust("30 seconds")
      const before = slotOf(monitor.id, resumedAt - 60_000) - 60_000
      yield* (yield* ResultIngest).ingest([checkResult(monitor.id, "local", before, false)])
      expect((yield* client.monitors.update({ params: { id: monitor.id }, payload: {} })).state).toBe("unknown")
      // Runs from then on count: the scheduler checks a resumed monitor at its current slot.
      const first = slotOf(monitor.id, resumedAt)
      yield* (yield* ResultIngest).ingest([checkResult(monitor.id, "local", first, true)])
      expect((yield* client.monitors.update({ params: { id: monitor.id }, payload: {} })).state).toBe("up")
      yield* (yield* ResultIngest).ingest([checkResult(monitor.id, "local", first + 60_000, false)])
      expect(yield* statusOf(component.id)).toBe("major_outage")
    }))

  it.effect("an unknown monitor is 404 for pause and resume", () =>
    Effect.gen(function*() {
      for (const action of ["pause", "resume"]) {
        const response = yield* sendJson("POST", `/api/v1/admin/monitors/unknown-id/${action}`)
        expect(response.status).toBe(404)
        expect(response.body).toMatchObject({ _tag: "NotFound" })
      }
    }))
})
