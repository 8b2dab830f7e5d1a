/**
 * Public maintenance over HTTP (`GET /api/v1/status/maintenance` and the summary's
 * `upcomingMaintenance`): the resource fields, and windows moving through the maintenance clock,
 * driven by TestClock.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect } from "effect"
import { TestClock } from "effect/testing"

import { eventuallyOnTestClock as eventually } from "../support/Eventually.js"
import { scheduleSoon } from "../support/Maintenance.js"
import { ApiClient, sendJson, TestServer, withMaintenanceClock } from "../support/TestServer.js"

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

it.layer(withMaintenanceClock(TestServer()))("public maintenance", (it) => {
  it.effect("returns id, createdAt and updatedAt as the admin API does, ISO strings ending in Z", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const window = yield* client.maintenance.create({
        payload: {
          title: "Certificate rotation",
          scheduledStart: DateTime.makeUnsafe("2031-05-01T02:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-05-01T03:00:00Z"),
          componentIds: [web.id]
        }
      })
      const publicWindow = (body: any) => (body as Array<{ id: string }>).find((item) => item.id === window.id) as any

      const admin = (yield* sendJson("GET", `/api/v1/admin/maintenance/${window.id}`)).body
      const listed = publicWindow((yield* sendJson("GET", "/api/v1/status/maintenance")).body)
      expect(Object.keys(listed).sort()).toEqual(
        [
          "componentIds",
          "createdAt",
          "description",
          "id",
          "recurrence",
          "scheduledEnd",
          "scheduledStart",
          "seriesId",
          "status",
          "title",
          "updatedAt"
        ]
      )
      expect(listed.createdAt).toMatch(isoUtc)
      expect(listed.updatedAt).toMatch(isoUtc)
      expect(listed).toMatchObject({ createdAt: admin.createdAt, updatedAt: admin.updatedAt })
      const summary = publicWindow((yield* sendJson("GET", "/api/v1/status")).body.upcomingMaintenance)
      expect(summary).toEqual(listed)

      // A change moves updatedAt on the public side too; createdAt stays.
      yield* client.maintenance.update({
        params: { id: window.id },
        payload: { title: "Certificate rotation (extended)" }
      })
      const changed = (yield* sendJson("GET", `/api/v1/admin/maintenance/${window.id}`)).body
      const relisted = publicWindow((yield* sendJson("GET", "/api/v1/status/maintenance")).body)
      expect(relisted).toMatchObject({
        title: "Certificate rotation (extended)",
        createdAt: admin.createdAt,
        updatedAt: changed.updatedAt
      })
    }))

  it.effect("lists a running window, in the list and the summary, until it completes", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const queue = yield* client.components.create({ payload: { name: "Queue" } })
      const window = yield* scheduleSoon("Queue failover", [queue.id])
      const listed = Effect.map(client.status.maintenance(), (list) => list.find((item) => item.id === window.id))
      const inSummary = Effect.map(client.status.summary(), (summary) =>
        summary.upcomingMaintenance.find((item) => item.id === window.id))
      expect((yield* listed)?.status).toBe("scheduled")

      yield* TestClock.adjust(Duration.seconds(59))
      const running = yield* eventually(Effect.map(listed, (item) =>
        item?.status === "in_progress" ? item : undefined))
      expect(running.componentIds).toEqual([queue.id])
      expect((yield* inSummary)?.status).toBe("in_progress")
      expect((yield* client.status.summary()).status).toBe("maintenance")

      yield* TestClock.adjust(Duration.minutes(9))
      yield* eventually(Effect.map(listed, (item) => item === undefined || undefined))
      expect((yield* client.maintenance.get({ params: { id: window.id } })).status).toBe("completed")
      expect(yield* inSummary).toBeUndefined()
      expect((yield* client.status.summary()).status).toBe("operational")
    }))
})
