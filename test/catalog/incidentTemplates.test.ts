import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const templates = "/api/v1/admin/incident-templates"

it.layer(TestServer())("incident templates", (it) => {
  it.effect("creates, lists, updates partially and deletes templates", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* client.components.create({ payload: { name: "API" } })

      const created = yield* sendJson("POST", templates, {
        name: "  Database down ",
        title: "Database unavailable",
        message: "We are investigating database errors.",
        componentIds: [api.id, api.id]
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        name: "Database down",
        title: "Database unavailable",
        message: "We are investigating database errors.",
        severity: "minor",
        status: "investigating",
        componentIds: [api.id]
      })
      const id: string = created.body.id

      const other = yield* client.incidentTemplates.create({
        payload: { name: "another", title: "T", message: "M", severity: "critical", status: "identified" }
      })
      expect((yield* client.incidentTemplates.list({ query: {} })).map((t) => t.name)).toEqual([
        "another",
        "Database down"
      ])

      const unchanged = yield* sendJson("PUT", `${templates}/${id}`, {})
      expect(unchanged.status).toBe(200)
      expect(unchanged.body.updatedAt).toBe(created.body.updatedAt)

      const updated = yield* client.incidentTemplates.update({
        params: { id: created.body.id },
        payload: { severity: "major", componentIds: [] }
      })
      expect(updated).toMatchObject({ name: "Database down", title: "Database unavailable", severity: "major" })
      expect(updated.componentIds).toEqual([])

      const removed = yield* sendJson("DELETE", `${templates}/${other.id}`)
      expect(removed.status).toBe(204)
      expect((yield* sendJson("DELETE", `${templates}/${other.id}`)).status).toBe(404)
      expect((yield* sendJson("PUT", `${templates}/${other.id}`, { name: "x" })).body._tag).toBe("NotFound")
      expect((yield* client.incidentTemplates.list({ query: {} })).map((t) => t.id)).toEqual([id])
    }))

  it.effect("refuses invalid bodies, unknown components and duplicate names", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      yield* client.incidentTemplates.create({ payload: { name: "Outage", title: "Outage", message: "Down" } })

      const missing = yield* sendJson("POST", templates, { name: "No title", message: "m" })
      expect(missing.status).toBe(400)
      expect(missing.body._tag).toBe("HttpApiDecodeError")
      expect(missing.body.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(["title"])

      const long = yield* sendJson("POST", templates, { name: "Long", title: "x".repeat(201), message: "m" })
      expect(long.status).toBe(400)
      const resolved = yield* sendJson("POST", templates, { name: "R", title: "t", message: "m", status: "resolved" })
      expect(resolved.status).toBe(400)

      const unknown = yield* sendJson("POST", templates, {
        name: "U",
        title: "t",
        message: "m",
        componentIds: ["nope"]
      })
      expect(unknown.status).toBe(400)
      expect(unknown.body).toMatchObject({
        _tag: "BadRequest",
        issues: [{ path: ["componentIds", 0], message: "unknown component \"nope\"" }]
      })

      const duplicate = yield* sendJson("POST", templates, { name: "OUTAGE", title: "t", message: "m" })
      expect(duplicate.status).toBe(409)
      expect(duplicate.body._tag).toBe("Conflict")
      const second = yield* client.incidentTemplates.create({ payload: { name: "Second", title: "t", message: "m" } })
      const renamed = yield* sendJson("PUT", `${templates}/${second.id}`, { name: "outage" })
      expect(renamed.status).toBe(409)
      const names = (yield* client.incidentTemplates.list({ query: {} })).map((t) => t.name)
      expect(names.filter((name) => name.toLowerCase() === "outage")).toEqual(["Outage"])
      expect(names).toContain("Second")
    }))

  it.effect("opens an incident from a template, the request's fields overriding the template's", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "Database" } })
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const template = yield* client.incidentTemplates.create({
        payload: {
          name: "Database writes",
          title: "Database unavailable",
          message: "Writes fail.",
          severity: "critical",
          status: "identified",
          componentIds: [db.id]
        }
      })

      const fromTemplate = yield* sendJson("POST", "/api/v1/admin/incidents", { templateId: template.id })
      expect(fromTemplate.status).toBe(201)
      expect(fromTemplate.body).toMatchObject({
        title: "Database unavailable",
        message: "Writes fail.",
        severity: "critical",
        status: "identified",
        componentIds: [db.id]
      })

      const overridden = yield* client.incidents.create({
        payload: { templateId: template.id, title: "Only reads", severity: "minor", componentIds: [web.id] }
      })
      expect(overridden).toMatchObject({
        title: "Only reads",
        message: "Writes fail.",
        severity: "minor",
        status: "identified",
        componentIds: [web.id]
      })

      const unknown = yield* sendJson("POST", "/api/v1/admin/incidents", { templateId: "nope", title: "t" })
      expect(unknown.status).toBe(404)
      expect(unknown.body).toMatchObject({ _tag: "NotFound", message: "Incident template \"nope\" was not found" })

      const neither = yield* sendJson("POST", "/api/v1/admin/incidents", { severity: "major" })
      expect(neither.status).toBe(400)
      expect(neither.body._tag).toBe("BadRequest")
      expect(neither.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["title"], ["message"]])
      const noMessage = yield* sendJson("POST", "/api/v1/admin/incidents", { title: "Only a title" })
      expect(noMessage.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["message"]])
    }))

  it.effect("drops a deleted component from the templates naming it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const kept = yield* client.components.create({ payload: { name: "Kept" } })
      const gone = yield* client.components.create({ payload: { name: "Gone" } })
      const template = yield* client.incidentTemplates.create({
        payload: { name: "Both", title: "Both down", message: "m", componentIds: [kept.id, gone.id] }
      })
      expect([...template.componentIds].sort()).toEqual([kept.id, gone.id].sort())

      yield* client.components.remove({ params: { id: gone.id } })
      const [listed] = (yield* client.incidentTemplates.list({ query: {} })).filter((t) => t.id === template.id)
      expect(listed!.componentIds).toEqual([kept.id])
      const incident = yield* client.incidents.create({ payload: { templateId: template.id } })
      expect(incident.componentIds).toEqual([kept.id])
    }))
})
