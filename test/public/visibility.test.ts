/**
 * Private stays private: an incident or a maintenance window is public only when an
 * administrator made it so (naming no component, or a public one). Deleting its private
 * component leaves it private on every public surface and in subscriber mail; hiding a
 * component hides what names only it, and showing it again shows them. Nothing else works the
 * visibility out again from the components that remain.
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"

import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually } from "../support/Eventually.js"
import { Smtp, withSmtp } from "../support/MailStack.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { ApiClient, sendJson } from "../support/TestServer.js"

const WithDispatcher = withSmtp(Dispatcher)

/**
 * Asserts that no public surface (API, feeds, pages with the uptime bars, embeds) shows
 * `secret`, and that the item's own pages are 404.
 */
const expectHidden = (secret: string, incidentId: string, windowId: string) =>
  Effect.gen(function*() {
    const lists = [
      "/api/v1/status",
      "/api/v1/status/incidents",
      "/api/v1/status/incidents?limit=100&offset=0",
      "/api/v1/status/incidents?status=investigating",
      "/api/v1/status/maintenance",
      "/api/v1/status/rss",
      "/api/v1/status/atom",
      "/",
      "/history",
      "/widget.json",
      "/badge.svg"
    ]
    const own = [`/api/v1/status/incidents/${incidentId}`, `/incidents/${incidentId}`, `/maintenance/${windowId}`]
    for (const path of [...lists, ...own]) {
      const response = yield* sendJson("GET", path)
      expect(response.status, path).toBe(own.includes(path) ? 404 : 200)
      expect(typeof response.body === "string" ? response.body : JSON.stringify(response.body), path).not.toContain(
        secret
      )
    }
  })

/** The public incident and window titles that start with `prefix` (the suite's tests share a database). */
const publicTitles = (prefix: string) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const summary = yield* client.status.summary()
    const listed = yield* client.status.incidents({ query: {} })
    const windows = yield* client.status.maintenance()
    const titles = (items: ReadonlyArray<{ readonly title: string }>) =>
      items.map((item) => item.title).filter((title) => title.startsWith(prefix))
    return {
      active: titles(summary.activeIncidents),
      listed: titles(listed),
      upcoming: titles(summary.upcomingMaintenance),
      windows: titles(windows)
    }
  })

it.layer(WithDispatcher)("private stays private", (it) => {
  it.effect("deleting a private component leaves its incident and window private everywhere, mail included", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const smtp = yield* Smtp
      yield* sql`insert into subscribers (email, unsubscribe_token, verified_at, page_id)
                 select 'reader@example.test', 'reader-token', now(), id from status_pages where is_default`
      // Webhooks are the operators' channel: one without a component filter hears of private items.
      const operators = yield* receiver(answerWith(200))
      yield* client.webhooks.create({ payload: { name: "operators", url: operators.url, type: "generic" } })

      const secretComponent = yield* client.components.create({ payload: { name: "Billing DB", isPublic: false } })
      const now = yield* DateTime.now
      const incident = yield* client.incidents.create({
        payload: { title: "SECRET breach", message: "SECRET details", componentIds: [secretComponent.id] }
      })
      const window = yield* client.maintenance.create({
        payload: {
          title: "SECRET migration",
          description: "SECRET plan",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 }),
          componentIds: [secretComponent.id]
        }
      })
      yield* expectHidden("SECRET", incident.id, window.id)

      const deleted = yield* sendJson("DELETE", `/api/v1/admin/components/${secretComponent.id}`)
      expect(deleted.status).toBe(204)
      // The links are gone, the items are not, and they stay private.
      expect((yield* client.incidents.get({ params: { id: incident.id } })).componentIds).toEqual([])
      yield* expectHidden("SECRET", incident.id, window.id)

      // The next update goes to the operators' webhook, not to subscribers.
      yield* client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "SECRET cause found" }
      })
      // A public incident afterwards is mailed: once its mail is there, the one before was decided.
      yield* client.incidents.create({ payload: { title: "Public slowness", message: "Looking into it" } })
      const mails = yield* eventually(Effect.sync(() => smtp.messages.slice()), (list) => list.length >= 1)
      expect(mails.map((mail) => mail.parsed.subject)).toEqual([expect.stringContaining("Public slowness")])
      const queued = yield* sql<
        { event: string }
      >`select event::text as event from mail_deliveries where event is not null`
      expect(queued.map((row) => row.event).filter((event) => event.includes("SECRET"))).toEqual([])
      expect(queued).toHaveLength(1)
      const hooks = yield* eventually(Effect.sync(() => operators.received.slice()), (list) => list.length >= 4)
      expect(hooks.map((hook) => JSON.parse(hook.body).data.title)).toEqual(
        expect.arrayContaining(["SECRET breach", "SECRET migration", "Public slowness"])
      )
      expect(hooks.some((hook) => JSON.parse(hook.body).data.message === "SECRET cause found")).toBe(true)
    }))

  it.effect("nothing works visibility out again: a next occurrence, an empty update, a template, publishing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const smtp = yield* Smtp
      const privately = (name: string) => client.components.create({ payload: { name, isPublic: false } })
      const [forIncident, forWindow, forTemplate, forDraft] = yield* Effect.all(
        ["LEAK 1", "LEAK 2", "LEAK 3", "LEAK 4"].map(privately)
      )
      const now = yield* DateTime.now
      const incident = yield* client.incidents.create({
        payload: { title: "LEAK incident", message: "x", componentIds: [forIncident!.id] }
      })
      const weekly = yield* client.maintenance.create({
        payload: {
          title: "LEAK weekly window",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 1, hours: 1 }),
          componentIds: [forWindow!.id],
          recurrence: { frequency: "weekly", interval: 1 }
        }
      })
      const template = yield* client.incidentTemplates.create({
        payload: { name: "LEAK template", title: "LEAK from template", message: "x", componentIds: [forTemplate!.id] }
      })
      const draft = yield* client.incidents.create({
        payload: { title: "LEAK draft", message: "x", componentIds: [forDraft!.id], published: false }
      })
      expect([incident.isPublic, weekly.isPublic, template.isPublic, draft.isPublic]).toEqual([
        false,
        false,
        false,
        false
      ])
      for (const component of [forIncident, forWindow, forTemplate, forDraft]) {
        yield* client.components.remove({ params: { id: component!.id } })
      }

      // An update naming no more components, the series going on, a template, a publication.
      const updated = yield* client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "x", componentStatuses: {} }
      })
      yield* client.maintenance.cancel({ params: { id: weekly.id }, query: {} })
      const next = (yield* client.maintenance.list({ query: {} })).find((window) =>
        window.seriesId === weekly.id && window.status === "scheduled"
      )
      // A form sends a template's (now empty) components back with a fix of its title: no choice.
      const edited = yield* client.incidentTemplates.update({
        params: { id: template.id },
        payload: { title: "LEAK from template, edited", componentIds: [] }
      })
      expect(edited.isPublic).toBe(false)
      const fromTemplate = yield* client.incidents.create({ payload: { templateId: template.id } })
      // Setting a private component's status with it adds that component, and no visibility.
      const alsoPrivate = yield* privately("LEAK 5")
      const withStatus = yield* client.incidents.create({
        payload: { templateId: template.id, componentStatuses: { [alsoPrivate.id]: "degraded" } }
      })
      expect([withStatus.isPublic, withStatus.componentIds]).toEqual([false, [alsoPrivate.id]])
      const published = yield* client.incidents.publish({ params: { id: draft.id } })
      expect([updated.isPublic, next?.isPublic, fromTemplate.isPublic, published.isPublic]).toEqual([
        false,
        false,
        false,
        false
      ])
      yield* expectHidden("LEAK", incident.id, next!.id)
      yield* expectHidden("LEAK", fromTemplate.id, weekly.id)
      yield* expectHidden("LEAK", published.id, weekly.id)

      // A public incident afterwards is mailed: once its mail is there, the ones before were decided.
      yield* client.incidents.create({ payload: { title: "Public marker", message: "x" } })
      yield* eventually(
        Effect.sync(() => smtp.messages.filter((mail) => mail.parsed.subject?.includes("Public marker"))),
        (list) => list.length === 1
      )
      expect(smtp.messages.filter((mail) => mail.parsed.subject?.includes("LEAK"))).toEqual([])
      const queued = yield* sql<
        { event: string }
      >`select event::text as event from mail_deliveries where event is not null`
      expect(queued.filter((row) => row.event.includes("LEAK"))).toEqual([])
    }))

  it.effect("hiding a component hides what names only it, showing it shows them again; naming none stays public", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const search = yield* client.components.create({ payload: { name: "Search" } })
      const other = yield* client.components.create({ payload: { name: "Other" } })
      const now = yield* DateTime.now
      yield* client.incidents.create({ payload: { title: "On search", message: "x", componentIds: [search.id] } })
      yield* client.incidents.create({
        payload: { title: "On search and other", message: "x", componentIds: [search.id, other.id] }
      })
      yield* client.incidents.create({ payload: { title: "On nothing", message: "x" } })
      yield* client.maintenance.create({
        payload: {
          title: "On search: upgrade",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 }),
          componentIds: [search.id]
        }
      })
      const everything = {
        active: ["On nothing", "On search and other", "On search"],
        listed: ["On nothing", "On search and other", "On search"],
        upcoming: ["On search: upgrade"],
        windows: ["On search: upgrade"]
      }
      expect(yield* publicTitles("On ")).toEqual(everything)

      yield* client.components.update({ params: { id: search.id }, payload: { isPublic: false } })
      expect(yield* publicTitles("On ")).toEqual({
        active: ["On nothing", "On search and other"],
        listed: ["On nothing", "On search and other"],
        upcoming: [],
        windows: []
      })
      // Still public through "Other", which alone is named on the public side.
      const shared = (yield* client.status.incidents({ query: {} })).find((i) => i.title === "On search and other")
      expect(shared?.componentIds).toEqual([other.id])

      // Showing it again is an administrator's act too.
      yield* client.components.update({ params: { id: search.id }, payload: { isPublic: true } })
      expect(yield* publicTitles("On ")).toEqual(everything)
    }))

  it.effect("an administrator makes a private item public by saying so, or by naming a public component", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const internal = yield* client.components.create({ payload: { name: "Internal", isPublic: false } })
      const shown = yield* client.components.create({ payload: { name: "Shown" } })
      const now = yield* DateTime.now
      const incident = yield* client.incidents.create({
        payload: { title: "Was internal", message: "x", componentIds: [internal.id] }
      })
      const window = yield* client.maintenance.create({
        payload: {
          title: "Internal window",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 }),
          componentIds: [internal.id]
        }
      })
      yield* client.components.remove({ params: { id: internal.id } })
      // A title change keeps the visibility.
      yield* client.incidents.update({ params: { id: incident.id }, payload: { title: "Still internal" } })
      yield* client.maintenance.update({ params: { id: window.id }, payload: { title: "Still internal window" } })
      const before = yield* publicTitles("Still")
      expect(before.listed).not.toContain("Still internal")
      expect(before.windows).not.toContain("Still internal window")

      // Sending back the components it names (none now), as a form does, chooses nothing.
      yield* client.incidents.update({ params: { id: incident.id }, payload: { componentIds: [] } })
      expect((yield* publicTitles("Still")).listed).not.toContain("Still internal")

      yield* client.incidents.update({ params: { id: incident.id }, payload: { isPublic: true } })
      yield* client.maintenance.update({ params: { id: window.id }, payload: { componentIds: [shown.id] } })
      const after = yield* publicTitles("Still")
      expect(after.listed).toContain("Still internal")
      expect(after.windows).toContain("Still internal window")
    }))
})
