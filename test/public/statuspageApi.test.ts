/**
 * Statuspage's public API (`/api/v2/*.json`) over HTTP against the full stack: every document
 * validates against a JSON Schema written from Atlassian's published documentation and maps our
 * state to theirs, per page under `/p/<slug>/api/v2/…` (a protected page only with its reader's
 * access), with ETags, 304s and CORS open to every origin, and answered from the snapshot while
 * the database is away.
 */
import { expect, layer } from "@effect/vitest"
import type { ErrorObject } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import { DateTime, Duration, Effect } from "effect"
import { HttpServer } from "effect/http"
import { TestClock } from "effect/testing"

import { eventuallyOnTestClock as eventually } from "../support/Eventually.js"
import { scheduleSoon } from "../support/Maintenance.js"
import {
  ApiClient,
  DatabaseProxy,
  sendAnonymous,
  sendJson,
  TestServer,
  TestStackBehindProxy,
  withMaintenanceClock
} from "../support/TestServer.js"

// JSON Schemas of Atlassian's documents (https://metastatuspage.com/api/v2/, "Statuspage public
// API"): the fields their documentation names, with their values; nothing else may appear.
const dateTime = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$"
}
const nullable = (schema: object) => ({ anyOf: [schema, { type: "null" }] })
const string = { type: "string" }
const strict = (properties: Record<string, object>, optional: ReadonlyArray<string> = []) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties
})

const pageSchema = strict({
  id: string,
  name: string,
  url: { type: "string", pattern: "^https?://" },
  time_zone: string,
  updated_at: dateTime
})
const statusSchema = strict({
  indicator: { enum: ["none", "minor", "major", "critical"] },
  description: string
})
const componentSchema = strict({
  id: string,
  name: string,
  status: { enum: ["operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"] },
  created_at: dateTime,
  updated_at: dateTime,
  position: { type: "integer", minimum: 1 },
  description: nullable(string),
  showcase: { type: "boolean" },
  start_date: nullable({ type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }),
  group_id: nullable(string),
  page_id: string,
  group: { type: "boolean" },
  only_show_if_degraded: { type: "boolean" },
  components: { type: "array", items: string }
}, ["components"])
const updateSchema = (statuses: ReadonlyArray<string>) =>
  strict({
    id: string,
    status: { enum: statuses },
    body: string,
    incident_id: string,
    created_at: dateTime,
    updated_at: dateTime,
    display_at: dateTime,
    affected_components: nullable({ type: "array" })
  })
const incidentFields = (statuses: ReadonlyArray<string>) => ({
  id: string,
  name: string,
  status: { enum: statuses },
  created_at: dateTime,
  updated_at: dateTime,
  monitoring_at: nullable(dateTime),
  resolved_at: nullable(dateTime),
  impact: { enum: ["none", "minor", "major", "critical", "maintenance"] },
  shortlink: { type: "string", pattern: "^https?://" },
  started_at: dateTime,
  page_id: string,
  incident_updates: { type: "array", items: updateSchema(statuses) },
  components: { type: "array", items: componentSchema }
})
const incidentStatuses = ["investigating", "identified", "monitoring", "resolved", "postmortem"]
const maintenanceStatuses = ["scheduled", "in_progress", "verifying", "completed"]
const incidentSchema = strict(incidentFields(incidentStatuses))
const maintenanceSchema = strict({
  ...incidentFields(maintenanceStatuses),
  scheduled_for: dateTime,
  scheduled_until: dateTime
})
const list = (items: object) => ({ type: "array", items })

const documentSchemas: Record<string, object> = {
  "/summary.json": strict({
    page: pageSchema,
    components: list(componentSchema),
    incidents: list(incidentSchema),
    scheduled_maintenances: list(maintenanceSchema),
    status: statusSchema
  }),
  "/status.json": strict({ page: pageSchema, status: statusSchema }),
  "/components.json": strict({ page: pageSchema, components: list(componentSchema) }),
  "/incidents.json": strict({ page: pageSchema, incidents: list(incidentSchema) }),
  "/incidents/unresolved.json": strict({ page: pageSchema, incidents: list(incidentSchema) }),
  "/scheduled-maintenances.json": strict({ page: pageSchema, scheduled_maintenances: list(maintenanceSchema) }),
  "/scheduled-maintenances/upcoming.json": strict({
    page: pageSchema,
    scheduled_maintenances: list(maintenanceSchema)
  }),
  "/scheduled-maintenances/active.json": strict({ page: pageSchema, scheduled_maintenances: list(maintenanceSchema) })
}
const ajv = new Ajv2020({ allErrors: true, strict: true })
const validators = new Map(Object.entries(documentSchemas).map(([path, schema]) => [path, ajv.compile(schema)]))
const documentPaths = [...validators.keys()]

const schemaErrors = (path: string, body: unknown): Array<ErrorObject> => {
  const validate = validators.get(path)!
  return validate(body) ? [] : validate.errors ?? []
}

/** A document of a page (`base`: "" or `/p/<slug>`), checked against its schema; status, headers and body. */
const document = (path: string, base = "", headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const response = yield* sendAnonymous("GET", `${base}/api/v2${path}`, undefined, headers)
    const documentPath = path.split("?")[0]!
    if (response.status === 200) expect(schemaErrors(documentPath, response.body), path).toEqual([])
    return response
  })

const body = (path: string, base = "") => Effect.map(document(path, base), (response) => response.body)

/** The cookie a reader of protected page `slug` (id `pageId`) gets by entering its password, as a browser would. */
const enter = (slug: string, pageId: string, password: string) =>
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
    const entered = yield* Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}/p/${slug}/access`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password, next: `/p/${slug}/` }).toString()
      })
    )
    expect(entered.status).toBe(303)
    const cookie = entered.headers.getSetCookie().find((header) => header.startsWith(`page-access-${pageId}=`))
    expect(cookie).toBeDefined()
    return cookie!.split(";")[0]!
  })

layer(withMaintenanceClock(TestServer()))("Statuspage's public API", (it) => {
  it.effect("answers every document in Statuspage's shape, mapping our components, incidents and windows", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const platform = yield* client.componentGroups.create({ payload: { name: "Platform" } })
      const api = yield* client.components.create({
        payload: { name: "API", description: "Public REST API", groupId: platform.id }
      })
      const web = yield* client.components.create({ payload: { name: "Web" } })
      yield* client.components.create({ payload: { name: "Internal", isPublic: false } })

      const old = yield* client.incidents.create({
        payload: { title: "Old outage", message: "Down", componentIds: [web.id] }
      })
      yield* client.incidents.resolve({ params: { id: old.id }, payload: { message: "Fixed" } })
      yield* client.incidents.setPostmortem({
        params: { id: old.id },
        payload: { body: "What happened", published: true }
      })
      const open = yield* client.incidents.create({
        payload: { title: "API errors", message: "Investigating", severity: "major", componentIds: [api.id] }
      })
      yield* client.incidents.addUpdate({
        params: { id: open.id },
        payload: { status: "identified", message: "Cause found" }
      })
      const window = yield* scheduleSoon("Database upgrade", [web.id])

      for (const path of documentPaths) expect((yield* document(path)).status, path).toBe(200)

      const summary = yield* body("/summary.json")
      expect(summary.page.url).not.toContain("/p/")
      // An unresolved incident of major impact raises the page to `major`, whatever its components.
      expect(summary.status).toEqual({ indicator: "major", description: "Partial System Outage" })
      // Groups are listed among the components, before their members; private components never.
      expect(summary.components.map((c: any) => [c.name, c.group, c.position, c.group_id])).toEqual([
        ["Platform", true, 1, null],
        ["API", false, 2, platform.id],
        ["Web", false, 3, null]
      ])
      expect(summary.components[0].components).toEqual([api.id])
      expect(summary.components[1]).toMatchObject({
        description: "Public REST API",
        status: "operational",
        showcase: true
      })
      expect(summary.components[2].description).toBeNull()

      const [incident] = summary.incidents
      expect(summary.incidents).toHaveLength(1)
      expect(incident).toMatchObject({ id: open.id, name: "API errors", status: "identified", impact: "major" })
      expect(incident.shortlink).toMatch(new RegExp(`/incidents/${open.id}$`))
      // Newest first, as Statuspage lists them.
      expect(incident.incident_updates.map((u: any) => [u.status, u.body])).toEqual([
        ["identified", "Cause found"],
        ["investigating", "Investigating"]
      ])
      expect(incident.components.map((c: any) => c.id)).toEqual([api.id])
      expect(summary.scheduled_maintenances.map((m: any) => [m.id, m.status, m.impact])).toEqual([
        [window.id, "scheduled", "maintenance"]
      ])

      expect((yield* body("/status.json")).status).toEqual(summary.status)
      expect((yield* body("/components.json")).components).toEqual(summary.components)
      expect((yield* body("/incidents/unresolved.json")).incidents).toEqual(summary.incidents)
      const incidents = (yield* body("/incidents.json")).incidents
      // A resolved incident with a published postmortem is in Statuspage's `postmortem` status.
      expect(incidents.map((i: any) => [i.name, i.status])).toEqual([["API errors", "identified"], [
        "Old outage",
        "postmortem"
      ]])
      expect(incidents[1].resolved_at).not.toBeNull()
      const windows = (yield* body("/scheduled-maintenances.json")).scheduled_maintenances
      expect(windows).toHaveLength(1)
      expect(windows[0]).toMatchObject({
        name: "Database upgrade",
        scheduled_for: DateTime.formatIso(window.scheduledStart),
        scheduled_until: DateTime.formatIso(window.scheduledEnd)
      })
      expect(windows[0].shortlink).toMatch(new RegExp(`/maintenance/${window.id}$`))
      expect((yield* body("/scheduled-maintenances/upcoming.json")).scheduled_maintenances).toEqual(windows)
      expect((yield* body("/scheduled-maintenances/active.json")).scheduled_maintenances).toEqual([])

      // The window starts: active, and its component under maintenance.
      yield* TestClock.adjust(Duration.seconds(59))
      const active = yield* eventually(
        Effect.map(
          body("/scheduled-maintenances/active.json"),
          (found) => found.scheduled_maintenances.length > 0 ? found.scheduled_maintenances : undefined
        )
      )
      expect(active.map((m: any) => [m.id, m.status])).toEqual([[window.id, "in_progress"]])
      expect(active[0].components.map((c: any) => [c.name, c.status])).toEqual([["Web", "under_maintenance"]])
      expect((yield* body("/scheduled-maintenances/upcoming.json")).scheduled_maintenances).toEqual([])
      yield* TestClock.adjust(Duration.minutes(10))
      yield* eventually(
        Effect.map(
          body("/scheduled-maintenances/active.json"),
          (found) => found.scheduled_maintenances.length === 0 || undefined
        )
      )
      const done = (yield* body("/scheduled-maintenances.json")).scheduled_maintenances
      expect(done.map((m: any) => m.status)).toEqual(["completed"])
      expect(done[0].resolved_at).not.toBeNull()

      // A component's status, set through the API, is the next read's.
      yield* client.incidents.resolve({ params: { id: open.id }, payload: { message: "Fixed" } })
      yield* client.components.setStatus({ params: { id: web.id }, payload: { status: "major_outage" } })
      yield* client.components.setStatus({ params: { id: api.id }, payload: { status: "degraded" } })
      const after = yield* body("/summary.json")
      expect(after.status).toEqual({ indicator: "major", description: "Partial System Outage" })
      expect(after.components.map((c: any) => [c.name, c.status])).toEqual([
        ["Platform", "degraded_performance"],
        ["API", "degraded_performance"],
        ["Web", "major_outage"]
      ])
      expect(after.incidents).toEqual([])
      expect(Date.parse(after.page.updated_at)).toBeGreaterThanOrEqual(Date.parse(summary.page.updated_at))
      yield* client.components.setStatus({ params: { id: api.id }, payload: { status: "major_outage" } })
      expect((yield* body("/status.json")).status).toEqual({
        indicator: "critical",
        description: "Major System Outage"
      })
      yield* client.components.setStatus({ params: { id: api.id }, payload: { status: "operational" } })
      yield* client.components.setStatus({ params: { id: web.id }, payload: { status: "operational" } })
      expect((yield* body("/status.json")).status).toEqual({
        indicator: "none",
        description: "All Systems Operational"
      })
    }))

  it.effect("answers with an ETag (304 when unchanged), open to every origin, whatever query a widget adds", () =>
    Effect.gen(function*() {
      for (const path of documentPaths) {
        const first = yield* document(path)
        expect(first.headers).toMatchObject({
          "access-control-allow-origin": "*",
          "cache-control": "public, max-age=5",
          "content-type": "application/json"
        })
        const etag = first.headers.etag!
        expect(etag).toMatch(/"$/)
        const again = yield* document(path, "", { "if-none-match": etag })
        expect(again.status).toBe(304)
        expect(again.headers["access-control-allow-origin"]).toBe("*")
        // A widget's cache-buster reads the same document, with the same ETag.
        const busted = yield* document(`${path}?_=1700000000000`)
        expect(busted.status).toBe(200)
        expect(busted.headers.etag).toBe(etag)
        expect(busted.body).toEqual(first.body)
        expect((yield* document(`${path}?_=1`, "", { "if-none-match": etag })).status).toBe(304)
      }
      const client = yield* ApiClient
      const before = yield* document("/components.json")
      yield* client.components.create({ payload: { name: "Search" } })
      const after = yield* document("/components.json", "", { "if-none-match": before.headers.etag! })
      expect(after.status).toBe(200)
      expect(after.body.components.map((c: any) => c.name)).toContain("Search")
    }))

  it.effect("answers per page under /p/<slug>/api/v2, a protected page only with its reader's access", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const billing = yield* client.components.create({ payload: { name: "Billing" } })
      const ledger = yield* client.components.create({ payload: { name: "Ledger" } })
      yield* client.incidents.create({
        payload: { title: "Invoices late", message: "Looking", componentIds: [billing.id] }
      })
      const ledgerIncident = yield* client.incidents.create({
        payload: { title: "Ledger stuck", message: "Looking", severity: "critical", componentIds: [ledger.id] }
      })
      const partners = yield* client.statusPages.create({
        payload: { slug: "partners", title: "Partner status", items: [{ type: "component", id: billing.id }] }
      })

      for (const path of documentPaths) expect((yield* document(path, "/p/partners")).status, path).toBe(200)
      const summary = yield* body("/summary.json", "/p/partners")
      expect(summary.page).toMatchObject({ id: partners.id, name: "Partner status" })
      expect(summary.page.url).toMatch(/\/p\/partners$/)
      expect(summary.components.map((c: any) => [c.name, c.page_id])).toEqual([["Billing", partners.id]])
      expect(summary.incidents.map((i: any) => i.name)).toEqual(["Invoices late"])
      expect(summary.incidents[0].shortlink).toMatch(/\/p\/partners\/incidents\//)
      // The ledger's critical incident is not this page's.
      expect(summary.status.indicator).toBe("minor")

      const unknown = yield* document("/summary.json", "/p/no-such-page")
      expect(unknown).toMatchObject({ status: 404, body: { _tag: "NotFound" } })
      expect(unknown.headers["access-control-allow-origin"]).toBe("*")

      const password = "correct horse battery"
      const internal = yield* client.statusPages.create({
        payload: { slug: "internal", audience: "protected", password, items: [{ type: "component", id: ledger.id }] }
      })
      for (const path of documentPaths) {
        const locked = yield* document(path, "/p/internal")
        expect(locked, path).toMatchObject({ status: 401, body: { _tag: "Unauthorized" } })
        expect(JSON.stringify(locked.body)).not.toContain("Ledger")
        expect(locked.headers["cache-control"]).toBe("private, no-cache")
      }
      const cookie = yield* enter("internal", internal.id, password)
      const read = yield* document("/summary.json", "/p/internal", { cookie })
      expect(read.status).toBe(200)
      expect(read.headers["cache-control"]).toBe("private, no-cache")
      expect(read.body.incidents.map((i: any) => i.id)).toEqual([ledgerIncident.id])
      expect(read.body.status).toEqual({ indicator: "critical", description: "Major System Outage" })
    }))
})

// Real time here: the pool reconnects on its own schedule.
layer(TestStackBehindProxy, { excludeTestServices: true })(
  "Statuspage's public API while the database is away",
  (it) => {
    it.effect(
      "answers every document from the snapshot: the fast path's, and the router's for a protected page",
      () =>
        Effect.gen(function*() {
          const client = yield* ApiClient
          const api = yield* client.components.create({ payload: { name: "API" } })
          yield* client.components.setStatus({ params: { id: api.id }, payload: { status: "partial_outage" } })
          const password = "correct horse battery"
          const staff = yield* client.statusPages.create({
            payload: { slug: "staff", audience: "protected", password, items: [{ type: "component", id: api.id }] }
          })
          const cookie = yield* enter("staff", staff.id, password)
          const before = new Map<string, unknown>()
          for (const path of documentPaths) {
            before.set(path, (yield* document(path)).body)
            before.set(`/p/staff${path}`, (yield* document(path, "/p/staff", { cookie })).body)
          }

          const proxy = yield* DatabaseProxy
          yield* Effect.promise(proxy.cut)
          // The database is away indeed: the admin API, which reads it, says so.
          expect((yield* sendJson("GET", "/api/v1/admin/components")).status).toBe(503)
          for (const path of documentPaths) {
            expect((yield* document(path)).body, path).toEqual(before.get(path))
            expect((yield* document(`${path}?_=2`)).body, path).toEqual(before.get(path))
            const ofStaff = yield* document(path, "/p/staff", { cookie })
            expect(ofStaff.status, path).toBe(200)
            expect(ofStaff.body, path).toEqual(before.get(`/p/staff${path}`))
          }
          expect((yield* body("/status.json")).status).toEqual({
            indicator: "minor",
            description: "Minor Service Outage"
          })
          yield* Effect.promise(proxy.restore)
        }),
      30_000
    )
  }
)
