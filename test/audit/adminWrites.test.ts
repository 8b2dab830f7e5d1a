/**
 * Every admin write leaves exactly one audit entry, in its own transaction: by whom (the API key),
 * from where (the client's address), which operation and which target. The list of writes is the
 * OpenAPI document's, so a write added later without its entry fails the walk. A write that fails
 * leaves none, no entry holds a secret, and entries cannot be changed or deleted through the API.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import { SqlClient } from "effect/sql"

import { Api } from "../../src/api/Api.js"
import { sqlState } from "../../src/persistence/DatabaseErrors.js"
import { adminVariables } from "../support/Auth.js"
import { sendJson, TestServer } from "../support/TestServer.js"
import { adminWriteOperations, asKey, entriesSince, type Entry, newestId, wholeLog } from "./AuditLog.js"

/** Every admin write the API declares, the team's included. */
const walked = adminWriteOperations()

type Method = "POST" | "PUT" | "PATCH" | "DELETE"

/** An ISO timestamp `days` from now, whole seconds. */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z")

/** An owner key of the test's own, used once already (its first use from this address is an entry of its own). */
const ownKey = (name: string) =>
  Effect.gen(function*() {
    const created = yield* sendJson("POST", "/api/v1/admin/api-keys", { name, role: "owner" })
    expect(created.status).toBe(201)
    const as = asKey(created.body.key as string)
    expect((yield* as(sendJson("GET", "/api/v1/admin/components"))).status).toBe(200)
    return { id: created.body.id as string, key: created.body.key as string, name, as }
  })

it.layer(TestServer(adminVariables))("audit log of admin writes", (it) => {
  it.effect("every admin write of the OpenAPI document leaves exactly one entry: its operation, key, address and target", () =>
    Effect.gen(function*() {
      const auditor = yield* ownKey("auditor")
      let last = yield* newestId
      const covered = new Set<string>()

      /** Sends a write as the auditor, and expects one new entry of `operation` on `target`. */
      const write = (
        operation: string,
        method: Method,
        url: string,
        body: unknown,
        target: (answer: any) => { readonly type: string; readonly id: string; readonly name: string }
      ) =>
        Effect.gen(function*() {
          const response = yield* auditor.as(sendJson(method, url, body))
          expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBeLessThan(300)
          const fresh = yield* entriesSince(last)
          expect(fresh.map((entry) => entry.operation), operation).toEqual([operation])
          const entry = fresh[0]!
          expect(entry).toMatchObject({
            operation,
            actor: { type: "apiKey", id: auditor.id, name: auditor.name },
            clientAddress: "127.0.0.1",
            target: target(response.body)
          })
          last = entry.id
          covered.add(operation)
          return { answer: response.body, entry }
        })

      const component = yield* write(
        "components.create",
        "POST",
        "/api/v1/admin/components",
        { name: "Checkout" },
        (answer) => ({ type: "component", id: answer.id, name: "Checkout" })
      )
      expect(component.entry.changes.name).toEqual({ before: null, after: "Checkout" })
      const componentId = component.answer.id as string
      const updatedComponent = yield* write(
        "components.update",
        "PUT",
        `/api/v1/admin/components/${componentId}`,
        { description: "Takes the money" },
        () => ({ type: "component", id: componentId, name: "Checkout" })
      )
      expect(updatedComponent.entry.changes).toEqual({ description: { before: "", after: "Takes the money" } })
      const statusSet = yield* write(
        "components.setStatus",
        "PATCH",
        `/api/v1/admin/components/${componentId}/status`,
        { status: "degraded" },
        () => ({ type: "component", id: componentId, name: "Checkout" })
      )
      expect(statusSet.entry.changes.status).toEqual({ before: "operational", after: "degraded" })

      const group = yield* write(
        "componentGroups.create",
        "POST",
        "/api/v1/admin/component-groups",
        { name: "Payments" },
        (answer) => ({ type: "componentGroup", id: answer.id, name: "Payments" })
      )
      const groupId = group.answer.id as string
      yield* write(
        "componentGroups.update",
        "PUT",
        `/api/v1/admin/component-groups/${groupId}`,
        { name: "Money" },
        () => ({ type: "componentGroup", id: groupId, name: "Money" })
      )

      const page = yield* write(
        "statusPages.create",
        "POST",
        "/api/v1/admin/pages",
        { slug: "partners" },
        (answer) => ({ type: "statusPage", id: answer.id, name: "partners" })
      )
      const pageId = page.answer.id as string
      yield* write(
        "statusPages.update",
        "PUT",
        `/api/v1/admin/pages/${pageId}`,
        { title: "Partners" },
        () => ({ type: "statusPage", id: pageId, name: "Partners" })
      )

      const monitorUrl = "http://127.0.0.1:9/health"
      const monitor = yield* write(
        "monitors.create",
        "POST",
        "/api/v1/admin/monitors",
        { componentId, type: "http", url: monitorUrl },
        (answer) => ({ type: "monitor", id: answer.id, name: monitorUrl })
      )
      const monitorId = monitor.answer.id as string
      const monitorUpdated = yield* write(
        "monitors.update",
        "PUT",
        `/api/v1/admin/monitors/${monitorId}`,
        { intervalSeconds: 120 },
        () => ({ type: "monitor", id: monitorId, name: monitorUrl })
      )
      expect(monitorUpdated.entry.changes).toEqual({ intervalSeconds: { before: 60, after: 120 } })
      const paused = yield* write(
        "monitors.pause",
        "POST",
        `/api/v1/admin/monitors/${monitorId}/pause`,
        undefined,
        () => ({ type: "monitor", id: monitorId, name: monitorUrl })
      )
      expect(paused.entry.changes.paused).toEqual({ before: false, after: true })
      yield* write(
        "monitors.resume",
        "POST",
        `/api/v1/admin/monitors/${monitorId}/resume`,
        undefined,
        () => ({ type: "monitor", id: monitorId, name: monitorUrl })
      )
      // A push monitor's token: the entry says it changed, never what it is.
      const push = yield* write(
        "monitors.create",
        "POST",
        "/api/v1/admin/monitors",
        { componentId, type: "push" },
        (answer) => ({ type: "monitor", id: answer.id, name: "/api/v1/push/********" })
      )
      const rotated = yield* write(
        "monitors.rotatePushToken",
        "POST",
        `/api/v1/admin/monitors/${push.answer.id}/push-token`,
        undefined,
        () => ({ type: "monitor", id: push.answer.id, name: "/api/v1/push/********" })
      )
      expect(rotated.entry.changes).toEqual({ pushToken: { before: "(secret)", after: "(secret)" } })
      expect(JSON.stringify([push.entry, rotated.entry])).not.toContain(rotated.answer.pushToken)

      const organization = yield* write(
        "organization.updateCurrent",
        "PUT",
        "/api/v1/admin/org",
        { name: "Acme" },
        (answer) => ({ type: "organization", id: answer.id, name: "Acme" })
      )
      const organizationId = organization.answer.id as string
      const renamed = yield* write(
        "organization.update",
        "PUT",
        `/api/v1/admin/org/${organizationId}`,
        { name: "Acme Inc" },
        () => ({ type: "organization", id: organizationId, name: "Acme Inc" })
      )
      expect(renamed.entry.changes).toEqual({ name: { before: "Acme", after: "Acme Inc" } })

      const key = yield* write(
        "apiKeys.create",
        "POST",
        "/api/v1/admin/api-keys",
        { name: "deploy bot", role: "editor" },
        (answer) => ({ type: "apiKey", id: answer.id, name: "deploy bot" })
      )
      expect(key.entry.changes.role).toEqual({ before: null, after: "editor" })
      yield* write(
        "apiKeys.remove",
        "DELETE",
        `/api/v1/admin/api-keys/${key.answer.id}`,
        undefined,
        () => ({ type: "apiKey", id: key.answer.id, name: "deploy bot" })
      )

      const hook = yield* write(
        "webhooks.create",
        "POST",
        "/api/v1/admin/webhooks",
        { name: "Chat", url: "http://127.0.0.1:9/hook", type: "generic" },
        (answer) => ({ type: "webhook", id: answer.id, name: "Chat" })
      )
      const hookId = hook.answer.id as string
      yield* write(
        "webhooks.update",
        "PUT",
        `/api/v1/admin/webhooks/${hookId}`,
        { name: "Team chat" },
        () => ({ type: "webhook", id: hookId, name: "Team chat" })
      )
      const toggled = yield* write(
        "webhooks.toggle",
        "PATCH",
        `/api/v1/admin/webhooks/${hookId}/toggle`,
        undefined,
        () => ({ type: "webhook", id: hookId, name: "Team chat" })
      )
      expect(toggled.entry.changes).toEqual({ isActive: { before: true, after: false } })
      const tested = yield* write(
        "webhooks.test",
        "POST",
        `/api/v1/admin/webhooks/${hookId}/test`,
        undefined,
        () => ({ type: "webhook", id: hookId, name: "Team chat" })
      )
      expect(tested.entry.changes).toEqual({})

      // A reader subscribes (public: no entry), then an operator removes them.
      expect((yield* sendJson("POST", "/api/v1/subscribe", { email: "reader@example.com" })).status).toBe(202)
      const subscribers = yield* sendJson("GET", "/api/v1/admin/subscribers")
      const subscriberId = (subscribers.body as ReadonlyArray<{ id: string; email: string }>)
        .find((subscriber) => subscriber.email === "reader@example.com")!.id
      yield* write(
        "subscribers.remove",
        "DELETE",
        `/api/v1/admin/subscribers/${subscriberId}`,
        undefined,
        () => ({ type: "subscriber", id: subscriberId, name: "reader@example.com" })
      )

      const template = yield* write(
        "incidentTemplates.create",
        "POST",
        "/api/v1/admin/incident-templates",
        { name: "Database down", title: "Database down", message: "We are looking into it." },
        (answer) => ({ type: "incidentTemplate", id: answer.id, name: "Database down" })
      )
      const templateId = template.answer.id as string
      yield* write(
        "incidentTemplates.update",
        "PUT",
        `/api/v1/admin/incident-templates/${templateId}`,
        { severity: "major" },
        () => ({ type: "incidentTemplate", id: templateId, name: "Database down" })
      )

      // One entry for a write that touches several rows: the incident, and its component's status.
      const incident = yield* write(
        "incidents.create",
        "POST",
        "/api/v1/admin/incidents",
        {
          title: "Payments fail",
          message: "Investigating",
          published: false,
          componentStatuses: { [componentId]: "major_outage" }
        },
        (answer) => ({ type: "incident", id: answer.id, name: "Payments fail" })
      )
      expect(incident.entry.changes.componentStatuses).toEqual({
        before: [{ id: componentId, name: "Checkout", status: "degraded" }],
        after: [{ id: componentId, name: "Checkout", status: "major_outage" }]
      })
      expect(incident.entry.changes.published).toEqual({ before: null, after: false })
      const incidentId = incident.answer.id as string
      const published = yield* write(
        "incidents.publish",
        "POST",
        `/api/v1/admin/incidents/${incidentId}/publish`,
        undefined,
        () => ({ type: "incident", id: incidentId, name: "Payments fail" })
      )
      expect(published.entry.changes.published).toEqual({ before: false, after: true })
      yield* write(
        "incidents.update",
        "PUT",
        `/api/v1/admin/incidents/${incidentId}`,
        { title: "Card payments fail" },
        () => ({ type: "incident", id: incidentId, name: "Card payments fail" })
      )
      const noted = yield* write(
        "incidents.addUpdate",
        "POST",
        `/api/v1/admin/incidents/${incidentId}/updates`,
        { status: "identified", message: "A bad deploy" },
        () => ({ type: "incident", id: incidentId, name: "Card payments fail" })
      )
      expect(noted.entry.changes).toMatchObject({
        status: { before: "investigating", after: "identified" },
        message: { before: "Investigating", after: "A bad deploy" }
      })
      const resolved = yield* write(
        "incidents.resolve",
        "PATCH",
        `/api/v1/admin/incidents/${incidentId}/resolve`,
        { restoreComponents: true },
        () => ({ type: "incident", id: incidentId, name: "Card payments fail" })
      )
      expect(resolved.entry.changes.componentStatuses).toEqual({
        before: [{ id: componentId, name: "Checkout", status: "major_outage" }],
        after: [{ id: componentId, name: "Checkout", status: "operational" }]
      })
      yield* write(
        "incidents.setPostmortem",
        "PUT",
        `/api/v1/admin/incidents/${incidentId}/postmortem`,
        { body: "What happened", published: true },
        () => ({ type: "incident", id: incidentId, name: "Card payments fail" })
      )

      const window = yield* write(
        "maintenance.create",
        "POST",
        "/api/v1/admin/maintenance",
        { title: "Upgrade", scheduledStart: inDays(2), scheduledEnd: inDays(2.1), componentIds: [componentId] },
        (answer) => ({ type: "maintenance", id: answer.id, name: "Upgrade" })
      )
      const windowId = window.answer.id as string
      yield* write(
        "maintenance.update",
        "PUT",
        `/api/v1/admin/maintenance/${windowId}`,
        { title: "Database upgrade" },
        () => ({ type: "maintenance", id: windowId, name: "Database upgrade" })
      )
      const cancelled = yield* write(
        "maintenance.cancel",
        "DELETE",
        `/api/v1/admin/maintenance/${windowId}`,
        undefined,
        () => ({ type: "maintenance", id: windowId, name: "Database upgrade" })
      )
      expect(cancelled.entry.changes.status).toEqual({ before: "scheduled", after: "cancelled" })

      const invitation = yield* write(
        "team.invite",
        "POST",
        "/api/v1/admin/invitations",
        { email: "newcomer@example.com", role: "editor" },
        (answer) => ({ type: "invitation", id: answer.id, name: "newcomer@example.com" })
      )
      yield* write(
        "team.revokeInvitation",
        "DELETE",
        `/api/v1/admin/invitations/${invitation.answer.id}`,
        undefined,
        () => ({ type: "invitation", id: invitation.answer.id, name: "newcomer@example.com" })
      )
      // A second member, as an accepted invitation would have added them.
      const sql = yield* SqlClient.SqlClient
      const [member] = yield* sql<{ id: string }>`
        insert into users (email, name, password_hash, role)
        values ('member@example.com', 'Member', 'not a hash', 'editor') returning id`
      const memberTarget = () => ({ type: "user", id: member!.id, name: "member@example.com" })
      const demoted = yield* write(
        "team.updateUser",
        "PATCH",
        `/api/v1/admin/users/${member!.id}`,
        { role: "viewer" },
        memberTarget
      )
      expect(demoted.entry.changes.role).toEqual({ before: "editor", after: "viewer" })
      yield* write("team.removeUser", "DELETE", `/api/v1/admin/users/${member!.id}`, undefined, memberTarget)

      yield* write(
        "incidentTemplates.remove",
        "DELETE",
        `/api/v1/admin/incident-templates/${templateId}`,
        undefined,
        () => ({ type: "incidentTemplate", id: templateId, name: "Database down" })
      )
      yield* write(
        "webhooks.remove",
        "DELETE",
        `/api/v1/admin/webhooks/${hookId}`,
        undefined,
        () => ({ type: "webhook", id: hookId, name: "Team chat" })
      )
      yield* write(
        "monitors.remove",
        "DELETE",
        `/api/v1/admin/monitors/${monitorId}`,
        undefined,
        () => ({ type: "monitor", id: monitorId, name: monitorUrl })
      )
      yield* write(
        "statusPages.remove",
        "DELETE",
        `/api/v1/admin/pages/${pageId}`,
        undefined,
        () => ({ type: "statusPage", id: pageId, name: "Partners" })
      )
      yield* write(
        "componentGroups.remove",
        "DELETE",
        `/api/v1/admin/component-groups/${groupId}`,
        undefined,
        () => ({ type: "componentGroup", id: groupId, name: "Money" })
      )
      const removed = yield* write(
        "components.remove",
        "DELETE",
        `/api/v1/admin/components/${componentId}`,
        undefined,
        () => ({ type: "component", id: componentId, name: "Checkout" })
      )
      expect(removed.entry.changes.name).toEqual({ before: "Checkout", after: null })

      // A configuration applied, an import: each change they make is an entry of theirs (here one each).
      yield* write(
        "configuration.apply",
        "POST",
        "/api/v1/admin/configuration",
        { document: { version: 1, components: [{ key: "audited", name: "Applied" }] } },
        () => ({ type: "component", id: expect.any(String), name: "Applied" })
      )
      yield* write(
        "configuration.import",
        "POST",
        "/api/v1/admin/imports",
        { bundle: { configuration: { version: 1, groups: [{ key: "imported", name: "Imported" }] } } },
        () => ({ type: "componentGroup", id: expect.any(String), name: "Imported" })
      )

      // The walk covered every admin write the API declares.
      expect(walked.length).toBeGreaterThan(35)
      expect(walked.filter((operation) => !covered.has(operation))).toEqual([])
      expect([...covered].filter((operation) => !walked.includes(operation))).toEqual([])
    }))

  it.effect("no entry holds a secret: a webhook's secret, header values, a page's password, an API key", () =>
    Effect.gen(function*() {
      const component = yield* sendJson("POST", "/api/v1/admin/components", { name: "Search" })
      const monitor = yield* sendJson("POST", "/api/v1/admin/monitors", {
        componentId: component.body.id,
        type: "http",
        url: "http://127.0.0.1:9/search",
        headers: { Authorization: "Bearer header-value-one", "X-Token": "header-value-two" }
      })
      expect(monitor.status).toBe(201)
      // A new value: the entry says the headers changed, not what to.
      const changed = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.body.id}`, {
        headers: { Authorization: "Bearer header-value-three", "X-Token": "********" }
      })
      expect(changed.status).toBe(200)
      const hook = yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "Signed",
        url: "http://127.0.0.1:9/signed",
        type: "generic"
      })
      expect(hook.status).toBe(201)
      const secret = hook.body.secret as string
      expect(secret.length).toBeGreaterThan(16)
      const page = yield* sendJson("POST", "/api/v1/admin/pages", {
        slug: "private",
        audience: "protected",
        password: "page password one"
      })
      expect(page.status).toBe(201)
      const repassworded = yield* sendJson("PUT", `/api/v1/admin/pages/${page.body.id}`, {
        password: "page password two"
      })
      expect(repassworded.status).toBe(200)
      const key = yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "secretive" })
      expect(key.status).toBe(201)

      const log = yield* wholeLog
      const text = JSON.stringify(log)
      for (
        const value of [
          "header-value-one",
          "header-value-two",
          "header-value-three",
          secret,
          "page password one",
          "page password two",
          key.body.key as string
        ]
      ) {
        expect(text).not.toContain(value)
      }
      // Hashes neither: the page's password hash is scrypt's, `scrypt$…` or similar.
      expect(text).not.toMatch(/scrypt|\$[0-9a-f]{16,}/i)

      const entryOf = (operation: string, id: string) =>
        log.find((entry) => entry.operation === operation && entry.target.id === id)!
      expect(entryOf("monitors.create", monitor.body.id).changes.headers).toEqual({
        before: null,
        after: "(secret)"
      })
      expect(entryOf("monitors.update", monitor.body.id).changes.headers).toEqual({
        before: "(secret)",
        after: "(secret)"
      })
      expect(entryOf("webhooks.create", hook.body.id).changes.secret).toEqual({ before: null, after: "(secret)" })
      expect(entryOf("statusPages.update", page.body.id).changes).toEqual({
        passwordHash: { before: "(secret)", after: "(secret)" }
      })
      expect(entryOf("apiKeys.create", key.body.id).changes).not.toHaveProperty("key")
    }))

  it.effect("a write that fails (400, 404, 409) leaves no entry", () =>
    Effect.gen(function*() {
      const writer = yield* ownKey("failing writer")
      const component = yield* sendJson("POST", "/api/v1/admin/components", { name: "Failing" })
      const open = yield* sendJson("POST", "/api/v1/admin/incidents", { title: "Open", message: "Still open" })
      const defaultPage = (yield* sendJson("GET", "/api/v1/admin/pages")).body.find((p: any) => p.isDefault)
      const hook = yield* sendJson("POST", "/api/v1/admin/webhooks", {
        name: "Chat",
        url: "http://127.0.0.1:9/chat",
        type: "chat_a"
      })
      const before = yield* newestId

      const failures: ReadonlyArray<readonly [Method, string, unknown, number]> = [
        ["PUT", "/api/v1/admin/components/no-such-component", { description: "x" }, 404],
        ["DELETE", "/api/v1/admin/components/no-such-component", undefined, 404],
        ["PATCH", "/api/v1/admin/components/no-such-component/status", { status: "degraded" }, 404],
        // The status of the known component would be set first: the unknown one rolls it back.
        [
          "POST",
          "/api/v1/admin/incidents",
          {
            title: "Half",
            message: "Half",
            componentStatuses: { [component.body.id]: "major_outage", "no-such-component": "major_outage" }
          },
          400
        ],
        ["PUT", `/api/v1/admin/incidents/${open.body.id}/postmortem`, { body: "Too early", published: true }, 409],
        ["DELETE", `/api/v1/admin/pages/${defaultPage.id}`, undefined, 409],
        ["PUT", `/api/v1/admin/webhooks/${hook.body.id}`, { type: "generic" }, 409],
        ["DELETE", "/api/v1/admin/webhooks/no-such-hook", undefined, 404],
        ["DELETE", "/api/v1/admin/subscribers/no-such-subscriber", undefined, 404],
        ["DELETE", "/api/v1/admin/incident-templates/no-such-template", undefined, 404],
        ["DELETE", "/api/v1/admin/maintenance/no-such-window", undefined, 404],
        ["POST", "/api/v1/admin/monitors/no-such-monitor/pause", undefined, 404],
        ["DELETE", `/api/v1/admin/api-keys/${writer.id}`, undefined, 409],
        ["POST", "/api/v1/admin/api-keys", { name: "past", expiresAt: "2001-01-01T00:00:00Z" }, 400]
      ]
      for (const [method, url, body, status] of failures) {
        const response = yield* writer.as(sendJson(method, url, body))
        expect(response.status, `${method} ${url}: ${JSON.stringify(response.body)}`).toBe(status)
      }
      expect(yield* entriesSince(before)).toEqual([])
      // The rolled back status change did not happen either.
      expect((yield* sendJson("GET", `/api/v1/admin/components/${component.body.id}`)).body.status).toBe("operational")
    }))

  it.effect("entries cannot be changed: the table refuses an UPDATE, and the API has no write on the log", () =>
    Effect.gen(function*() {
      expect((yield* sendJson("POST", "/api/v1/admin/components", { name: "Immutable" })).status).toBe(201)
      const sql = yield* SqlClient.SqlClient
      const refused = yield* Effect.flip(sql`update audit_log set operation = 'nothing happened'`)
      // The trigger's `raise exception`: SQLSTATE P0001 with its message.
      expect(sqlState(refused)).toBe("P0001")
      expect((refused.reason.cause as { message?: string } | undefined)?.message)
        .toBe("audit log entries cannot be changed")
      const [{ changed }] = yield* sql<{ changed: number }>`
        select count(*)::int as changed from audit_log where operation = 'nothing happened'`
      expect(changed).toBe(0)

      const document = OpenApi.fromApi(Api)
      const logPaths = Object.entries(document.paths).filter(([path]) => path.startsWith("/api/v1/admin/audit-log"))
      expect(logPaths.map(([path, item]) => [path, Object.keys(item as object).filter((key) => key !== "parameters")]))
        .toEqual([["/api/v1/admin/audit-log", ["get"]]])
      for (const method of ["DELETE", "PUT", "PATCH", "POST"] as const) {
        const response = yield* sendJson(method, "/api/v1/admin/audit-log", method === "DELETE" ? undefined : {})
        expect(response.status, method).toBeGreaterThanOrEqual(400)
        expect(response.status, method).toBeLessThan(500)
      }
      const log: ReadonlyArray<Entry> = yield* wholeLog
      expect(log.some((entry) => entry.target.name === "Immutable")).toBe(true)
    }))
})
