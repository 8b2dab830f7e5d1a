import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("component status events", (it) => {
  it.effect("PATCH and PUT write component.status_changed only when the status changes", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "Database" } })
      const mark = yield* outboxMark
      yield* client.components.setStatus({ params: { id: db.id }, payload: { status: "degraded" } })
      yield* client.components.setStatus({ params: { id: db.id }, payload: { status: "degraded" } })
      yield* client.components.update({ params: { id: db.id }, payload: { description: "Primary" } })
      yield* client.components.update({ params: { id: db.id }, payload: { status: "major_outage", name: "DB" } })
      const events = yield* outboxSince(mark)
      expect(events.map((e) => [e.event, e.payload, e.componentIds])).toEqual([
        [
          "component.status_changed",
          { id: db.id, name: "Database", previousStatus: "operational", status: "degraded" },
          [db.id]
        ],
        ["component.status_changed", { id: db.id, name: "DB", previousStatus: "degraded", status: "major_outage" }, [
          db.id
        ]]
      ])
    }))

  it.effect("a refused change writes no event", () =>
    Effect.gen(function*() {
      const mark = yield* outboxMark
      expect((yield* sendJson("PATCH", "/api/v1/admin/components/nope/status", { status: "degraded" })).status).toBe(
        404
      )
      expect(yield* outboxSince(mark)).toEqual([])
    }))
})
