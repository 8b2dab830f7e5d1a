/**
 * Component groups against the real database: the admin API, a component's `groupId`, and what
 * the public summary and components list show of them.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

const groups = "/api/v1/admin/component-groups"

it.layer(TestServer())("component groups", (it) => {
  it.effect("creates with defaults, lists by displayOrder, updates partially and answers 404 for unknown ids", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      // Sent raw: the typed client would refuse the untrimmed name before sending it.
      const created = yield* sendJson("POST", groups, { name: "  Platform  " })
      expect(created.status).toBe(201)
      const platform = created.body
      expect(platform).toMatchObject({ name: "Platform", description: "", isPublic: true })
      expect(Object.keys(platform).sort()).toEqual(
        ["createdAt", "description", "displayOrder", "id", "isPublic", "name", "updatedAt"]
      )
      expect(platform.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const first = yield* client.componentGroups.create({ payload: { name: "First", displayOrder: -5 } })
      const last = yield* client.componentGroups.create({ payload: { name: "Last" } })
      expect(last.displayOrder).toBeGreaterThan(platform.displayOrder)
      expect((yield* client.componentGroups.list({ query: {} })).map((group) => group.name)).toEqual([
        "First",
        "Platform",
        "Last"
      ])

      const updated = yield* client.componentGroups.update({
        params: { id: first.id },
        payload: { description: "The first ones", isPublic: false }
      })
      expect(updated).toMatchObject({ name: "First", description: "The first ones", displayOrder: -5, isPublic: false })
      const unchanged = yield* client.componentGroups.update({ params: { id: first.id }, payload: {} })
      expect(unchanged.updatedAt).toEqual(updated.updatedAt)

      for (const [method, body] of [["PUT", { name: "x" }], ["DELETE", undefined]] as const) {
        const response = yield* sendJson(method, `${groups}/nope`, body)
        expect(response.status, method).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: "Component group \"nope\" was not found" })
      }
      for (
        const body of [
          { name: "   " },
          { name: "x".repeat(201) },
          { name: "x", description: "d".repeat(2001) },
          { name: "x", displayOrder: 1.5 },
          { name: "x", displayOrder: 2 ** 31 },
          { name: "x", isPublic: "yes" }
        ]
      ) {
        const response = yield* sendJson("POST", groups, body)
        expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400)
      }
      const anonymous = yield* sendAnonymous("GET", groups)
      expect(anonymous.status).toBe(401)
    }))

  it.effect("puts components in a group, refuses an unknown group with 404, and ungroups them when it is deleted", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const group = yield* client.componentGroups.create({ payload: { name: "Data" } })
      const db = yield* client.components.create({ payload: { name: "Database", groupId: group.id } })
      expect(db.groupId).toBe(group.id)
      const cache = yield* client.components.create({ payload: { name: "Cache" } })
      expect(cache.groupId).toBeNull()
      const moved = yield* client.components.update({ params: { id: cache.id }, payload: { groupId: group.id } })
      expect(moved.groupId).toBe(group.id)

      const unknownOnCreate = yield* sendJson("POST", "/api/v1/admin/components", { name: "X", groupId: "nope" })
      expect(unknownOnCreate.status).toBe(404)
      expect(unknownOnCreate.body).toEqual({ _tag: "NotFound", message: "Component group \"nope\" was not found" })
      const unknownOnUpdate = yield* sendJson("PUT", `/api/v1/admin/components/${cache.id}`, { groupId: "nope" })
      expect(unknownOnUpdate.status).toBe(404)
      expect((yield* client.components.list({ query: {} })).map((c) => c.name)).not.toContain("X")
      const kept = (yield* client.components.list({ query: {} })).find((c) => c.id === cache.id)
      expect(kept?.groupId).toBe(group.id)

      const ungrouped = yield* client.components.update({ params: { id: cache.id }, payload: { groupId: null } })
      expect(ungrouped.groupId).toBeNull()

      const removed = yield* sendJson("DELETE", `${groups}/${group.id}`)
      expect(removed.status).toBe(204)
      const after = yield* client.components.list({ query: {} })
      expect(after.find((c) => c.id === db.id)?.groupId).toBeNull()
      expect((yield* sendJson("DELETE", `${groups}/${group.id}`)).status).toBe(404)
    }))

  it.effect("shows public groups with the worst status of their public components in the summary", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const shown = yield* client.componentGroups.create({ payload: { name: "Shown", displayOrder: 1000 } })
      const early = yield* client.componentGroups.create({ payload: { name: "Early", displayOrder: 999 } })
      const hidden = yield* client.componentGroups.create({ payload: { name: "Hidden", isPublic: false } })
      const allPrivate = yield* client.componentGroups.create({ payload: { name: "All private" } })
      yield* client.componentGroups.create({ payload: { name: "Empty" } })

      const web = yield* client.components.create({ payload: { name: "Web", groupId: shown.id } })
      const api = yield* client.components.create({
        payload: { name: "API", groupId: shown.id, status: "partial_outage" }
      })
      // A private component's status does not count towards its group's.
      const secret = yield* client.components.create({
        payload: { name: "Secret", groupId: shown.id, status: "major_outage", isPublic: false }
      })
      const mail = yield* client.components.create({ payload: { name: "Mail", groupId: early.id } })
      const inHidden = yield* client.components.create({ payload: { name: "Internal tools", groupId: hidden.id } })
      yield* client.components.create({ payload: { name: "Private one", groupId: allPrivate.id, isPublic: false } })

      const summary = yield* sendAnonymous("GET", "/api/v1/status")
      expect(summary.status).toBe(200)
      expect(summary.body.groups).toEqual([
        { id: early.id, name: "Early", status: "operational", componentIds: [mail.id] },
        { id: shown.id, name: "Shown", status: "partial_outage", componentIds: [web.id, api.id] }
      ])
      const byId = new Map(
        (summary.body.components as ReadonlyArray<{ id: string; groupId: string | null }>).map((c) => [c.id, c])
      )
      expect(byId.get(web.id)?.groupId).toBe(shown.id)
      expect(byId.has(secret.id)).toBe(false)
      // Its group is private: the component is public, and ungrouped on the public side.
      expect(byId.get(inHidden.id)?.groupId).toBeNull()

      const components = yield* sendAnonymous("GET", "/api/v1/status/components")
      expect(
        (components.body as ReadonlyArray<{ id: string; groupId: string | null }>).find((c) => c.id === api.id)
      ).toMatchObject({ groupId: shown.id })

      // Changes show at once in the public summary (the write waits for the snapshot).
      yield* client.components.setStatus({ params: { id: web.id }, payload: { status: "major_outage" } })
      yield* client.componentGroups.update({ params: { id: early.id }, payload: { isPublic: false } })
      const changed = yield* sendAnonymous("GET", "/api/v1/status")
      expect(changed.body.groups).toEqual([
        { id: shown.id, name: "Shown", status: "major_outage", componentIds: [web.id, api.id] }
      ])
      yield* client.componentGroups.remove({ params: { id: shown.id } })
      const afterDelete = yield* sendAnonymous("GET", "/api/v1/status")
      expect(afterDelete.body.groups).toEqual([])
    }))
})
