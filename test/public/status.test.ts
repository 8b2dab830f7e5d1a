import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import type { ComponentStatus } from "../../src/domain/Component.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("public status", (it) => {
  it.effect("is operational with empty lists when there are no components", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const summary = yield* client.status.summary()
      expect(summary).toEqual({
        status: "operational",
        components: [],
        groups: [],
        activeIncidents: [],
        upcomingMaintenance: []
      })
    }))

  it.effect("shows public components in displayOrder, hides private ones, and reports the worst public status", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* client.components.create({ payload: { name: "API", displayOrder: 2 } })
      const web = yield* client.components.create({ payload: { name: "Web", displayOrder: 1, status: "degraded" } })
      const secret = yield* client.components.create({
        payload: { name: "Internal", displayOrder: 0, status: "major_outage", isPublic: false }
      })

      const components = yield* client.status.components()
      expect(components).toEqual([
        { id: web.id, name: "Web", description: "", status: "degraded", displayOrder: 1, groupId: null },
        { id: api.id, name: "API", description: "", status: "operational", displayOrder: 2, groupId: null }
      ])

      // The private major outage does not count.
      const summary = yield* client.status.summary()
      expect(summary.status).toBe("degraded")
      expect(summary.components.map((c) => c.name)).toEqual(["Web", "API"])

      // Making it public makes it count; hiding it again removes it.
      yield* client.components.update({ params: { id: secret.id }, payload: { isPublic: true } })
      expect((yield* client.status.summary()).status).toBe("major_outage")
      yield* client.components.update({ params: { id: secret.id }, payload: { isPublic: false } })
      expect((yield* client.status.components()).map((c) => c.id)).not.toContain(secret.id)
    }))

  it.effect("orders the overall status major > partial > degraded > maintenance > operational", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      for (const existing of yield* client.components.list({ query: {} })) {
        yield* client.components.remove({ params: { id: existing.id } })
      }
      const probe = yield* client.components.create({ payload: { name: "Probe" } })
      const other = yield* client.components.create({ payload: { name: "Other" } })
      const order: ReadonlyArray<ComponentStatus> = [
        "operational",
        "maintenance",
        "degraded",
        "partial_outage",
        "major_outage"
      ]
      for (const [rank, worse] of order.entries()) {
        yield* client.components.setStatus({ params: { id: probe.id }, payload: { status: worse } })
        for (const better of order.slice(0, rank + 1)) {
          yield* client.components.setStatus({ params: { id: other.id }, payload: { status: better } })
          expect((yield* client.status.summary()).status, `${worse} with ${better}`).toBe(worse)
        }
      }
    }))
})
