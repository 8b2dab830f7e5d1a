/**
 * Draft incidents (`published: false`), over the real API, database, dispatcher, SMTP server and
 * webhook receiver: operators see a draft, the public does not (API, pages, feeds, badge,
 * widget), and none of its changes writes an event, so no mail or webhook tells of it; publishing
 * shows it as its components allow and writes one `incident.created` with the timeline so far.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import type { IncidentId } from "../../src/domain/Incident.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually } from "../support/Eventually.js"
import { Smtp, withSmtp } from "../support/MailStack.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { answerWith, receiver } from "../support/Receiver.js"
import { ApiClient, sendJson } from "../support/TestServer.js"

const WithDispatcher = withSmtp(Dispatcher)

/** The public surfaces that list incidents (a draft's own pages are checked apart: they must be 404). */
const publicLists = [
  "/api/v1/status",
  "/api/v1/status/incidents",
  "/api/v1/status/incidents?limit=100&offset=0",
  "/api/v1/status/incidents?status=investigating",
  "/api/v1/status/incidents?status=identified",
  "/api/v1/status/incidents?status=resolved",
  "/api/v1/status/rss",
  "/api/v1/status/atom",
  "/",
  "/history",
  "/widget.json",
  "/badge.svg"
]

const bodyText = (body: unknown) => typeof body === "string" ? body : JSON.stringify(body)

/** No public surface names the incident (by id or by `title`), and its own pages are 404. */
const expectHidden = (title: string, incidentId: string) =>
  Effect.gen(function*() {
    for (const path of publicLists) {
      const response = yield* sendJson("GET", path)
      expect(response.status, path).toBe(200)
      expect(bodyText(response.body), path).not.toContain(title)
      expect(bodyText(response.body), path).not.toContain(incidentId)
    }
    for (const path of [`/api/v1/status/incidents/${incidentId}`, `/incidents/${incidentId}`]) {
      expect((yield* sendJson("GET", path)).status, path).toBe(404)
    }
  })

/** What the badge and the widget show: a draft must change neither. */
const embeds = Effect.all({
  badge: Effect.map(sendJson("GET", "/badge.svg"), (response) => response.body),
  widget: Effect.map(sendJson("GET", "/widget.json"), (response) => response.body)
})

/** A verified subscriber of everything (shared by the suite's tests: each counts mail by subject). */
const subscribe = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`insert into subscribers (email, unsubscribe_token, verified_at, page_id)
      select 'reader@example.test', 'reader-token', now(), id from status_pages where is_default on conflict do nothing`
)

/** A real receiver behind a generic webhook without component filter (the operators' channel). */
const operatorsHook = (name: string) =>
  Effect.gen(function*() {
    const hook = yield* receiver(answerWith(200))
    yield* (yield* ApiClient).webhooks.create({ payload: { name, url: hook.url, type: "generic" } })
    return hook
  })

const mailsAbout = (title: string) =>
  Effect.map(Smtp, (smtp) => smtp.messages.filter((mail) => (mail.parsed.subject ?? "").includes(title)))

it.layer(WithDispatcher)("draft incidents", (it) => {
  it.effect("a draft is hidden and silent through its changes; publishing shows it and tells once", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      yield* subscribe
      const hook = yield* operatorsHook("operators")
      const checkout = yield* client.components.create({ payload: { name: "Checkout" } })
      const embedsBefore = yield* embeds
      const mark = yield* outboxMark

      // Draft A: created, corrected and updated while a draft.
      const created = yield* sendJson("POST", "/api/v1/admin/incidents", {
        title: "Draft-alpha checkout errors",
        message: "Draft-alpha looking into it",
        componentIds: [checkout.id],
        published: false
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ published: false, source: "manual", monitorId: null, automation: null })
      const alpha = created.body.id as IncidentId
      yield* client.incidents.update({ params: { id: alpha }, payload: { severity: "major" } })
      const updated = yield* client.incidents.addUpdate({
        params: { id: alpha },
        payload: { status: "identified", message: "Draft-alpha cause found" }
      })
      expect(updated).toMatchObject({ published: false, status: "identified", severity: "major" })

      // Draft B: taken all the way to resolved while a draft.
      const beta = yield* client.incidents.create({
        payload: { title: "Draft-beta search down", message: "Draft-beta looking", published: false }
      })
      yield* client.incidents.update({ params: { id: beta.id }, payload: { title: "Draft-beta search is down" } })
      yield* client.incidents.addUpdate({
        params: { id: beta.id },
        payload: { status: "monitoring", message: "Draft-beta fix deployed" }
      })
      const resolvedBeta = yield* client.incidents.resolve({ params: { id: beta.id }, payload: { message: "Gone" } })
      expect(resolvedBeta).toMatchObject({ published: false, status: "resolved" })

      // Operators see both drafts as such.
      const listed = yield* client.incidents.list({ query: {} })
      expect(listed.filter((i) => i.id === alpha || i.id === beta.id).map((i) => [i.title, i.published])).toEqual([
        ["Draft-beta search is down", false],
        ["Draft-alpha checkout errors", false]
      ])
      expect((yield* client.incidents.get({ params: { id: alpha } })).published).toBe(false)

      // The public sees neither, and the badge and widget are exactly as before.
      yield* expectHidden("Draft-alpha", alpha)
      yield* expectHidden("Draft-beta", beta.id)
      expect(yield* embeds).toEqual(embedsBefore)
      // Nothing was written for the dispatcher to send.
      expect(yield* outboxSince(mark)).toEqual([])

      // Publishing A: one incident.created carrying the timeline so far.
      const published = yield* sendJson("POST", `/api/v1/admin/incidents/${alpha}/publish`)
      expect(published.status).toBe(200)
      expect(published.body).toMatchObject({ id: alpha, published: true, status: "identified" })
      const events = yield* outboxSince(mark)
      expect(events.map((row) => row.event)).toEqual(["incident.created"])
      expect(events[0]!.componentIds).toEqual([checkout.id])
      expect(events[0]!.payload).toMatchObject({
        id: alpha,
        title: "Draft-alpha checkout errors",
        status: "identified",
        severity: "major",
        componentIds: [checkout.id],
        message: "Draft-alpha cause found"
      })
      expect(events[0]!.payload.updates.map((u: any) => [u.status, u.message])).toEqual([
        ["investigating", "Draft-alpha looking into it"],
        ["identified", "Draft-alpha cause found"]
      ])
      // Operators' bookkeeping stays out of events.
      expect(events[0]!.payload).not.toHaveProperty("published")

      // Public everywhere now.
      const detail = yield* sendJson("GET", `/api/v1/status/incidents/${alpha}`)
      expect(detail.status).toBe(200)
      expect(detail.body.updates.map((u: any) => u.message)).toEqual([
        "Draft-alpha looking into it",
        "Draft-alpha cause found"
      ])
      expect((yield* client.status.summary()).activeIncidents.map((i) => i.id)).toContain(alpha)
      expect((yield* client.status.incidents({ query: {} })).map((i) => i.id)).toContain(alpha)
      for (const path of [`/incidents/${alpha}`, "/", "/api/v1/status/rss", "/api/v1/status/atom"]) {
        const response = yield* sendJson("GET", path)
        expect(response.status, path).toBe(200)
        expect(bodyText(response.body), path).toContain("Draft-alpha checkout errors")
      }
      const widget = (yield* sendJson("GET", "/widget.json")).body
      expect(widget.activeIncidents.map((i: { id: string }) => i.id)).toContain(alpha)
      // The resolved draft B is still hidden.
      yield* expectHidden("Draft-beta", beta.id)

      // Mail reaches the subscriber, the webhook its receiver: once.
      const mails = yield* eventually(mailsAbout("Draft-alpha"), (list) => list.length >= 1)
      expect(mails.map((mail) => mail.envelopeTo)).toEqual([["reader@example.test"]])
      const hooks = yield* eventually(Effect.sync(() => hook.received.slice()), (list) => list.length >= 1)
      expect(hooks).toHaveLength(1)
      const delivered = JSON.parse(hooks[0]!.body)
      expect(delivered).toMatchObject({ event: "incident.created", data: { id: alpha, status: "identified" } })

      // Publishing again: the incident as it is, no event; an unknown id is 404.
      const afterPublish = yield* outboxMark
      const again = yield* sendJson("POST", `/api/v1/admin/incidents/${alpha}/publish`)
      expect(again.status).toBe(200)
      expect(again.body).toMatchObject({ id: alpha, published: true, updatedAt: published.body.updatedAt })
      const unknown = yield* sendJson("POST", "/api/v1/admin/incidents/no-such-incident/publish")
      expect(unknown.status).toBe(404)
      expect(unknown.body).toEqual({ _tag: "NotFound", message: "Incident \"no-such-incident\" was not found" })
      expect(yield* outboxSince(afterPublish)).toEqual([])

      // From now on A's changes are told as usual.
      yield* client.incidents.resolve({ params: { id: alpha }, payload: { message: "Draft-alpha fixed" } })
      expect((yield* outboxSince(afterPublish)).map((row) => row.event)).toEqual(["incident.resolved"])
      yield* eventually(mailsAbout("Draft-alpha"), (list) => list.length >= 2)
      yield* eventually(Effect.sync(() => hook.received.length), (n) => n >= 2)
      expect(hook.received.map((request) => JSON.parse(request.body).event)).toEqual([
        "incident.created",
        "incident.resolved"
      ])
      // Nothing of the resolved draft reached anyone.
      expect(yield* mailsAbout("Draft-beta")).toEqual([])
      expect(hook.received.filter((request) => request.body.includes(beta.id))).toEqual([])

      // The webhook carries the timeline the event was written with (docs/notifications.md).
      expect(delivered.data.updates?.map((u: any) => u.message)).toEqual([
        "Draft-alpha looking into it",
        "Draft-alpha cause found"
      ])
    }))

  it.effect("a published draft is as public as its components; a component's isPublic never publishes a draft", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      yield* subscribe
      const hook = yield* operatorsHook("operators, second")
      const internal = yield* client.components.create({ payload: { name: "Ledger", isPublic: false } })
      const shown = yield* client.components.create({ payload: { name: "Search" } })
      const mark = yield* outboxMark

      // On a private component: private after publishing too.
      const onPrivate = yield* client.incidents.create({
        payload: { title: "Draft-private ledger", message: "x", componentIds: [internal.id], published: false }
      })
      const publishedPrivate = yield* client.incidents.publish({ params: { id: onPrivate.id } })
      expect(publishedPrivate.published).toBe(true)
      yield* expectHidden("Draft-private", onPrivate.id)
      // It is told to the operators' webhook only (as any private incident): one incident.created.
      expect((yield* outboxSince(mark)).map((row) => [row.event, row.payload.id])).toEqual([
        ["incident.created", onPrivate.id]
      ])

      // Showing a component does not publish the drafts naming it, hiding and showing again neither.
      const afterPrivate = yield* outboxMark
      const onInternal = yield* client.incidents.create({
        payload: { title: "Draft-gamma ledger", message: "x", componentIds: [internal.id], published: false }
      })
      const onShown = yield* client.incidents.create({
        payload: { title: "Draft-delta search", message: "x", componentIds: [shown.id], published: false }
      })
      yield* client.components.update({ params: { id: internal.id }, payload: { isPublic: true } })
      yield* client.components.update({ params: { id: shown.id }, payload: { isPublic: false } })
      yield* client.components.update({ params: { id: shown.id }, payload: { isPublic: true } })
      yield* expectHidden("Draft-gamma", onInternal.id)
      yield* expectHidden("Draft-delta", onShown.id)
      expect(yield* outboxSince(afterPrivate)).toEqual([])
      for (const id of [onInternal.id, onShown.id]) {
        expect((yield* client.incidents.get({ params: { id } })).published).toBe(false)
      }

      // Publishing decides from the components as they are now: "Ledger" is public.
      yield* client.incidents.publish({ params: { id: onInternal.id } })
      const detail = yield* client.status.incident({ params: { id: onInternal.id } })
      expect(detail.componentIds).toEqual([internal.id])
      // Its mail is there: the private one published before had its turn and was not mailed.
      yield* eventually(mailsAbout("Draft-gamma"), (list) => list.length >= 1)
      expect(yield* mailsAbout("Draft-private")).toEqual([])
      const hooks = yield* eventually(Effect.sync(() => hook.received.slice()), (list) => list.length >= 2)
      expect(hooks.map((request) => JSON.parse(request.body).data.title)).toEqual([
        "Draft-private ledger",
        "Draft-gamma ledger"
      ])
      yield* expectHidden("Draft-delta", onShown.id)
    }))
})
