import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("incidents", (it) => {
  it.effect("creates with the initial message as first timeline entry, updates, adds updates and resolves", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* client.components.create({ payload: { name: "API" } })
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const mark = yield* outboxMark

      const created = yield* client.incidents.create({
        payload: {
          title: "Slow API",
          status: "investigating",
          severity: "major",
          message: "Looking into it",
          componentIds: [api.id, api.id]
        }
      })
      expect(created).toMatchObject({
        title: "Slow API",
        status: "investigating",
        severity: "major",
        message: "Looking into it",
        componentIds: [api.id],
        resolvedAt: null
      })
      expect(created.updates.map((u) => [u.status, u.message])).toEqual([["investigating", "Looking into it"]])

      const defaults = yield* sendJson("POST", "/api/v1/admin/incidents", { title: "  Minimal  ", message: "m" })
      expect(defaults.status).toBe(201)
      expect(defaults.body).toMatchObject({
        title: "Minimal",
        status: "investigating",
        severity: "minor",
        componentIds: []
      })
      expect(defaults.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const updated = yield* client.incidents.update({
        params: { id: created.id },
        payload: { severity: "critical", componentIds: [web.id, api.id] }
      })
      expect(updated).toMatchObject({ title: "Slow API", severity: "critical", status: "investigating" })
      expect([...updated.componentIds].sort()).toEqual([api.id, web.id].sort())

      const withUpdate = yield* sendJson("POST", `/api/v1/admin/incidents/${created.id}/updates`, {
        status: "identified",
        message: "Found the cause"
      })
      expect(withUpdate.status).toBe(201)
      expect(withUpdate.body.status).toBe("identified")
      expect(withUpdate.body.updates.map((u: any) => u.message)).toEqual(["Looking into it", "Found the cause"])

      const resolved = yield* client.incidents.resolve({ params: { id: created.id }, payload: { message: "Fixed" } })
      expect(resolved.status).toBe("resolved")
      expect(resolved.resolvedAt).not.toBeNull()
      expect(resolved.updates.map((u) => [u.status, u.message])).toEqual([
        ["investigating", "Looking into it"],
        ["identified", "Found the cause"],
        ["resolved", "Fixed"]
      ])

      // An update with status `resolved` resolves too; an empty resolve body is accepted.
      const byUpdate = yield* client.incidents.addUpdate({
        params: { id: defaults.body.id },
        payload: { status: "resolved", message: "Gone" }
      })
      expect(byUpdate.status).toBe("resolved")
      expect(byUpdate.resolvedAt).not.toBeNull()
      const third = yield* client.incidents.create({ payload: { title: "Third", message: "x" } })
      const emptyBody = yield* sendJson("PATCH", `/api/v1/admin/incidents/${third.id}/resolve`)
      expect(emptyBody.status).toBe(200)
      expect(emptyBody.body.updates.at(-1)).toMatchObject({
        status: "resolved",
        message: "This incident has been resolved."
      })

      const events = yield* outboxSince(mark)
      expect(events.map((e) => e.event)).toEqual([
        "incident.created",
        "incident.created",
        "incident.updated",
        "incident.updated",
        "incident.resolved",
        "incident.resolved",
        "incident.created",
        "incident.resolved"
      ])
      expect(events[0]!.payload).toMatchObject({
        id: created.id,
        title: "Slow API",
        status: "investigating",
        severity: "major",
        componentIds: [api.id]
      })
      expect(events[0]!.componentIds).toEqual([api.id])
      expect(events[4]!.payload).toMatchObject({ id: created.id, status: "resolved", severity: "critical" })
      expect([...events[4]!.componentIds].sort()).toEqual([api.id, web.id].sort())

      const listed = yield* client.incidents.list({ query: {} })
      expect(listed.map((i) => i.title)).toEqual(["Third", "Minimal", "Slow API"])
    }))

  it.effect("answers 409 for changes to resolved incidents and 404 for unknown ids", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Done", message: "x" } })
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      const mark = yield* outboxMark
      for (
        const [method, url, body] of [
          ["PATCH", `/api/v1/admin/incidents/${incident.id}/resolve`, {}],
          ["POST", `/api/v1/admin/incidents/${incident.id}/updates`, { status: "monitoring", message: "again" }],
          ["POST", `/api/v1/admin/incidents/${incident.id}/updates`, { status: "resolved", message: "again" }],
          ["PUT", `/api/v1/admin/incidents/${incident.id}`, { status: "investigating" }]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, `${method} ${url}`).toBe(409)
        expect(response.body._tag).toBe("Conflict")
      }
      // An empty PUT changes nothing and announces nothing.
      expect((yield* client.incidents.update({ params: { id: incident.id }, payload: {} })).updatedAt).toEqual(
        (yield* client.incidents.get({ params: { id: incident.id } })).updatedAt
      )
      // A resolved incident can still be corrected.
      const renamed = yield* client.incidents.update({
        params: { id: incident.id },
        payload: { title: "Done (renamed)" }
      })
      expect(renamed).toMatchObject({ title: "Done (renamed)", status: "resolved" })
      expect((yield* outboxSince(mark)).map((e) => e.event)).toEqual(["incident.updated"])

      for (
        const [method, url, body] of [
          ["GET", "/api/v1/admin/incidents/nope", undefined],
          ["PUT", "/api/v1/admin/incidents/nope", { title: "x" }],
          ["POST", "/api/v1/admin/incidents/nope/updates", { status: "identified", message: "x" }],
          ["PATCH", "/api/v1/admin/incidents/nope/resolve", undefined]
        ] as const
      ) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, `${method} ${url}`).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: "Incident \"nope\" was not found" })
      }
    }))

  it.effect("rejects bad bodies and unknown components with 400 and writes no event", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const target = yield* client.incidents.create({ payload: { title: "Target", message: "x" } })
      const known = yield* client.components.create({ payload: { name: "Known" } })
      const mark = yield* outboxMark
      const base = "/api/v1/admin/incidents"
      const cases: ReadonlyArray<readonly [string, "POST" | "PUT" | "PATCH", string, unknown]> = [
        ["missing title", "POST", base, { message: "x" }],
        ["missing message", "POST", base, { title: "x" }],
        ["blank message", "POST", base, { title: "x", message: "  " }],
        ["resolved on create", "POST", base, { title: "x", message: "m", status: "resolved" }],
        ["unknown status", "POST", base, { title: "x", message: "m", status: "down" }],
        ["unknown severity", "POST", base, { title: "x", message: "m", severity: "huge" }],
        ["componentIds not array", "POST", base, { title: "x", message: "m", componentIds: "a" }],
        ["NUL in message", "POST", base, { title: "x", message: "a\u0000b" }],
        ["unknown component", "POST", base, { title: "x", message: "m", componentIds: ["nope"] }],
        ["resolved on PUT", "PUT", `${base}/${target.id}`, { status: "resolved" }],
        ["unknown component on PUT", "PUT", `${base}/${target.id}`, { componentIds: ["nope"] }],
        ["update without message", "POST", `${base}/${target.id}/updates`, { status: "identified" }],
        ["update with bad status", "POST", `${base}/${target.id}/updates`, { status: "fixed", message: "m" }],
        ["resolve message not string", "PATCH", `${base}/${target.id}/resolve`, { message: 5 }],
        ["malformed JSON", "POST", base, "{"],
        ["NUL in a component id", "POST", base, { title: "x", message: "m", componentIds: ["a\u0000"] }],
        ["NUL in the path id", "PUT", `${base}/%00`, { title: "x" }],
        ["NUL in the path id of resolve", "PATCH", `${base}/%00/resolve`, {}]
      ]
      for (const [label, method, url, body] of cases) {
        const response = yield* sendJson(method, url, body)
        expect(response.status, label).toBe(400)
        expect(typeof response.body._tag, label).toBe("string")
        expect(typeof response.body.message, label).toBe("string")
      }
      // Each unknown id is an issue at its place in the body, as a schema error names its paths.
      const unknown = yield* sendJson("POST", base, {
        title: "x",
        message: "m",
        componentIds: ["nope", known.id, "gone", "nope"]
      })
      expect(unknown.body).toEqual({
        _tag: "BadRequest",
        message: "Unknown componentIds: \"nope\", \"gone\"",
        issues: [
          { path: ["componentIds", 0], message: "unknown component \"nope\"" },
          { path: ["componentIds", 2], message: "unknown component \"gone\"" },
          { path: ["componentIds", 3], message: "unknown component \"nope\"" }
        ]
      })
      const unknownOnPut = yield* sendJson("PUT", `${base}/${target.id}`, { componentIds: [known.id, "nope"] })
      expect(unknownOnPut.body.issues).toEqual([{ path: ["componentIds", 1], message: "unknown component \"nope\"" }])
      // The schema's own error for an element names it the same way.
      const malformed = yield* sendJson("POST", base, { title: "x", message: "m", componentIds: [known.id, "a\u0000"] })
      expect(malformed.body.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(["componentIds", 1])
      expect(yield* outboxSince(mark)).toEqual([])
      expect((yield* client.incidents.list({ query: {} })).map((i) => i.title)).not.toContain("x")
    }))
})
