/**
 * What the public sees, compared with `VisibilityModel` after each step of the visibility model
 * test: exactly the model's public incidents and windows on the summary, the lists, the widget,
 * the feeds, `/` and `/history`, each naming only its live public components; every other item's
 * detail and page 404, and its id, label and those of private components on no public answer;
 * and subscriber mail (the dispatcher's hand-over, run here) for exactly the events of public
 * items, rendered without private names.
 */
import { Data, Duration, Effect, Result } from "effect"
import { SqlClient } from "effect/sql"

import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { historyPageSize } from "../../src/public/render/Pages.js"
import { toNotificationEvent } from "../../src/services/notifications/dispatcher/OutboxEvents.js"
import { MailDeliveries } from "../../src/services/notifications/mail/MailDeliveries.js"
import type { MailedEvent } from "../../src/services/notifications/mail/SubscriberMail.js"
import { isMailedEvent, notificationMail } from "../../src/services/notifications/mail/SubscriberMail.js"
import { sendAnonymous, sendJson } from "./TestServer.js"
import type { ModelIncident, ModelItem, VisibilityModel } from "./VisibilityModel.js"
import type { RunStats, VisibilityRun } from "./VisibilityRun.js"

/** A public surface (or the mail) that differs from the model. */
export class Mismatch extends Data.TaggedError("Mismatch")<{ readonly surface: string; readonly detail: string }> {}

/** An admin request, with the answer it must get (anything else is a mismatch). */
export const expectAnswer = (
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  status: number,
  body?: unknown
) =>
  Effect.flatMap(sendJson(method, path, body), (response) =>
    response.status === status
      ? Effect.succeed(response.body as any)
      : Effect.fail(
        new Mismatch({
          surface: `${method} ${path}`,
          detail: `answered ${response.status} (expected ${status}): ${JSON.stringify(response.body).slice(0, 300)}`
        })
      ))

/** How many items the feeds carry; beyond it the newest win, and only what is absent is checked. */
const feedItems = 50

/**
 * Reads the windows back after a step: statuses and starts are the clock's business. A window the
 * model does not know is a series' next occurrence, which follows the one before it (rule 3).
 */
export const syncWindows = (model: VisibilityModel, run: VisibilityRun) =>
  Effect.gen(function*() {
    const listed = (yield* expectAnswer("GET", "/api/v1/admin/maintenance", 200)) as Array<any>
    const known = new Map([...model.windows.values()].map((w) => [w.id, w]))
    const fresh = []
    for (const window of listed) {
      const mine = known.get(window.id)
      if (mine === undefined) fresh.push(window)
      else {
        mine.status = window.status
        mine.start = Date.parse(window.scheduledStart)
      }
    }
    fresh.sort((a, b) => Date.parse(a.scheduledStart) - Date.parse(b.scheduledStart))
    for (const window of fresh) {
      const head = [...model.windows.values()].find((w) => w.id === window.seriesId)
      const start = Date.parse(window.scheduledStart)
      const previous = head === undefined
        ? undefined
        : model.occurrences(head.series).filter((w) => w.start < start).at(-1)
      if (previous === undefined) {
        return yield* new Mismatch({
          surface: "GET /api/v1/admin/maintenance",
          detail: `a window no act created and that follows no occurrence: ${JSON.stringify(window)}`
        })
      }
      const label = `${previous.series}#${model.occurrences(previous.series).length + 1}`
      run.labels.set(window.id, label)
      model.followOccurrence(previous.label, {
        label,
        id: window.id,
        title: window.title,
        status: window.status,
        start
      })
    }
  })

/**
 * The strings that must appear on no public answer, with what they are: the ids and `[label]`s
 * of the items the public may not see and of private components.
 */
const secretsOf = (model: VisibilityModel) => {
  const secrets = new Map<string, string>()
  const windows = [...model.windows.values()]
  // Occurrences of a series share their title and name the first one (`seriesId`): those are
  // secret only while no occurrence of the series is public.
  const shownSeries = new Set(windows.filter((w) => w.isPublic).map((w) => w.series))
  const shownIncidents = new Set(
    [...model.incidents.values()].filter((i) => model.incidentVisible(i)).map((i) => i.label)
  )
  for (const incident of model.incidents.values()) {
    if (shownIncidents.has(incident.label)) continue
    secrets.set(incident.id, `${incident.label} (not public)`)
    secrets.set(`[${incident.label}]`, `${incident.label}'s text (not public)`)
  }
  for (const window of windows) {
    if (window.isPublic) continue
    if (!shownSeries.has(window.series) || window.label !== window.series) {
      secrets.set(window.id, `${window.label} (not public)`)
    }
    if (!shownSeries.has(window.series)) secrets.set(`[${window.series}]`, `${window.label}'s text (not public)`)
  }
  for (const template of model.templates.values()) {
    secrets.set(template.id, `template ${template.label}`)
    secrets.set(`[${template.label}]`, `template ${template.label}'s text`)
  }
  for (const component of model.components.values()) {
    if (component.isPublic) continue
    secrets.set(component.id, `private component ${component.label}`)
    secrets.set(`[${component.label}]`, `private component ${component.label}'s name`)
  }
  return secrets
}

export const compareSurfaces = (model: VisibilityModel, run: VisibilityRun) =>
  Effect.gen(function*() {
    const secrets = secretsOf(model)
    const names = (ids: ReadonlyArray<string>) => `[${ids.map((id) => run.labelOf(id)).toSorted().join(", ")}]`
    const mismatch = (surface: string, detail: string) => Effect.fail(new Mismatch({ surface, detail }))

    /** A public answer with the status the model expects; `surface` names it by labels. */
    const get = (path: string, status = 200) =>
      Effect.flatMap(sendAnonymous("GET", path), (response) => {
        const surface = `GET ${path.replace(/[0-9a-f-]{36}/, (id) => run.labelOf(id))}`
        const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body)
        return response.status === status
          ? Effect.succeed({ surface, body: response.body as any, text })
          : mismatch(surface, `answered ${response.status}, the model expects ${status}`)
      })
    /** No secret in `text`; `asked` is the id a detail request names, which its 404 may repeat. */
    const noSecrets = ({ surface, text }: { surface: string; text: string }, asked?: string) => {
      for (const [secret, what] of secrets) {
        if (secret !== asked && text.includes(secret)) return mismatch(surface, `shows ${what}`)
      }
      return Effect.void
    }
    const publicity = (id: string) => {
      const item = byId.get(id)
      return item === undefined
        ? "which no act created"
        : item.isPublic
        ? "public in the model"
        : "private in the model"
    }
    const sameIds = (surface: string, actual: ReadonlyArray<string>, expected: ReadonlyArray<ModelItem>) => {
      const want = new Set(expected.map((item) => item.id))
      const extra = actual.filter((id) => !want.has(id))
      const missing = [...want].filter((id) => !actual.includes(id))
      if (extra.length > 0) {
        return mismatch(surface, `lists ${extra.map((id) => `${run.labelOf(id)} (${publicity(id)})`).join(", ")}`)
      }
      return missing.length === 0
        ? Effect.void
        : mismatch(surface, `lacks ${names(missing)}, which the model shows (it lists ${names(actual)})`)
    }
    const byId = new Map<string, ModelItem>(
      [...model.incidents.values(), ...model.windows.values()].map((item) => [item.id, item])
    )
    /** Each listed item names exactly its live public components. */
    const sameComponents = (surface: string, listed: ReadonlyArray<{ id: string; componentIds: Array<string> }>) =>
      Effect.forEach(listed, (entry) => {
        const item = byId.get(entry.id)
        if (item === undefined) return mismatch(surface, `lists ${entry.id}, which no act created`)
        const want = names(model.shownComponents(item).map((label) => model.components.get(label)!.id))
        const got = names(entry.componentIds)
        return got === want ? Effect.void : mismatch(surface, `${item.label} names ${got}, the model ${want}`)
      }, { discard: true })
    const containsAll = (surface: string, text: string, expected: ReadonlyArray<ModelItem>) => {
      const missing = expected.filter((item) => !text.includes(item.id))
      return missing.length === 0
        ? Effect.void
        : mismatch(surface, `lacks ${names(missing.map((item) => item.id))}, which the model shows`)
    }

    const incidents = [...model.incidents.values()]
    const windows = [...model.windows.values()]
    const visible = incidents.filter((i) => model.incidentVisible(i))
    const active = visible.filter((i) => !i.resolved)
    const publicWindows = windows.filter((w) => w.isPublic)
    const upcoming = publicWindows.filter((w) => w.status === "scheduled" || w.status === "in_progress")
    const paged = publicWindows.filter((w) => w.status !== "cancelled")
    const publicComponents = [...model.components.values()].filter((c) => c.alive && c.isPublic)
    const componentItems = publicComponents.map((c) => ({ label: c.label, id: c.id }) as ModelItem)

    const summary = yield* get("/api/v1/status")
    const { activeIncidents, components, upcomingMaintenance } = summary.body
    yield* sameIds(`${summary.surface} activeIncidents`, activeIncidents.map((i: any) => i.id), active)
    yield* sameComponents(`${summary.surface} activeIncidents`, activeIncidents)
    yield* sameIds(`${summary.surface} upcomingMaintenance`, upcomingMaintenance.map((w: any) => w.id), upcoming)
    yield* sameComponents(`${summary.surface} upcomingMaintenance`, upcomingMaintenance)
    yield* sameIds(`${summary.surface} components`, components.map((c: any) => c.id), componentItems)
    yield* noSecrets(summary)

    const listed = yield* get("/api/v1/status/incidents?limit=100")
    yield* sameIds(listed.surface, listed.body.map((i: any) => i.id), visible)
    yield* sameComponents(listed.surface, listed.body)
    yield* noSecrets(listed)

    const maintenance = yield* get("/api/v1/status/maintenance")
    yield* sameIds(maintenance.surface, maintenance.body.map((w: any) => w.id), upcoming)
    yield* sameComponents(maintenance.surface, maintenance.body)
    yield* noSecrets(maintenance)

    const widget = yield* get("/widget.json")
    yield* sameIds(`${widget.surface} activeIncidents`, widget.body.activeIncidents.map((i: any) => i.id), active)
    yield* sameIds(`${widget.surface} maintenance`, widget.body.maintenance.map((w: any) => w.id), upcoming)
    yield* sameIds(`${widget.surface} components`, widget.body.components.map((c: any) => c.id), componentItems)
    yield* noSecrets(widget)

    for (const path of ["/api/v1/status/rss", "/api/v1/status/atom"]) {
      const feed = yield* get(path)
      yield* noSecrets(feed)
      if (visible.length + paged.length <= feedItems) {
        yield* containsAll(feed.surface, feed.text, [...visible, ...paged])
      }
    }
    const page = yield* get("/")
    yield* noSecrets(page)
    yield* containsAll(page.surface, page.text, [...active, ...upcoming])
    const history = yield* get("/history")
    yield* noSecrets(history)
    if (visible.length <= historyPageSize) yield* containsAll(history.surface, history.text, visible)

    for (const incident of incidents) {
      const shown = model.incidentVisible(incident)
      const detail = yield* get(`/api/v1/status/incidents/${incident.id}`, shown ? 200 : 404)
      if (shown) yield* sameComponents(detail.surface, [detail.body])
      yield* noSecrets(detail, incident.id)
      yield* noSecrets(yield* get(`/incidents/${incident.id}`, shown ? 200 : 404), incident.id)
    }
    for (const window of windows) {
      const shown = window.isPublic && window.status !== "cancelled"
      yield* noSecrets(yield* get(`/maintenance/${window.id}`, shown ? 200 : 404), window.id)
    }

    yield* compareAdmin(model, run)
    yield* compareMail(model, secrets, run.stats)
  })

/**
 * The admin lists name the components the model says each item names (what the rules work on;
 * not a public surface, but a model that lost track of the links would judge the rest wrongly).
 */
const compareAdmin = (model: VisibilityModel, run: VisibilityRun) =>
  Effect.gen(function*() {
    const kinds = [
      ["/api/v1/admin/incidents", model.incidents],
      ["/api/v1/admin/maintenance", model.windows],
      ["/api/v1/admin/incident-templates", model.templates]
    ] as const
    for (const [path, items] of kinds) {
      const listed = (yield* expectAnswer("GET", path, 200)) as Array<
        { id: string; componentIds: Array<string>; isPublic?: unknown }
      >
      const byId = new Map([...items.values()].map((item) => [item.id, item as ModelItem]))
      for (const entry of listed) {
        const item = byId.get(entry.id)
        if (item === undefined) {
          return yield* new Mismatch({ surface: `GET ${path}`, detail: `lists ${entry.id}, which no act created` })
        }
        const want = [...item.named].map((label) => run.labelOf(model.components.get(label)!.id)).toSorted().join(", ")
        const got = entry.componentIds.map((id) => run.labelOf(id)).toSorted().join(", ")
        if (want !== got) {
          return yield* new Mismatch({
            surface: `GET ${path} (admin)`,
            detail: `${item.label} names [${got}], the model [${want}]`
          })
        }
        // What the admin API says of visibility (rule 5), where it says it.
        if (typeof entry.isPublic === "boolean") {
          const expected = "published" in item ? model.incidentVisible(item as ModelIncident) : item.isPublic
          if (entry.isPublic !== expected) {
            return yield* new Mismatch({
              surface: `GET ${path} (admin)`,
              detail: `${item.label} has isPublic ${entry.isPublic}, the model ${expected}`
            })
          }
        }
      }
    }
  })

/**
 * Hands the new outbox events over as the dispatcher does, to one verified subscriber of every
 * component: the events of items the model says are public are mailed, no other one is, and no
 * mail names a private component or a hidden item.
 */
const compareMail = (model: VisibilityModel, secrets: Map<string, string>, stats: RunStats) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxRepo
    const mails = yield* MailDeliveries
    const sql = yield* SqlClient.SqlClient
    const rows = yield* Effect.orDie(outbox.claimPending(1000, Duration.minutes(1)))
    const events = rows.flatMap((row) =>
      Result.match(toNotificationEvent(row), { onFailure: () => [], onSuccess: (e) => [e] })
    )
    yield* Effect.orDie(mails.enqueueMany(events))
    yield* Effect.orDie(outbox.markDispatched(rows.map((row) => row.id)))
    const eventIds = events.map((event) => event.id)
    const mailed = new Set(
      (yield* Effect.orDie(
        sql<{ id: string }>`select distinct event_id as id from mail_deliveries where event_id = any(${eventIds})`
      )).map((row) => row.id)
    )
    const items = new Map<string, ModelItem & { visible: boolean }>()
    for (const incident of model.incidents.values()) {
      items.set(incident.id, { ...incident, visible: model.incidentVisible(incident) })
    }
    for (const window of model.windows.values()) items.set(window.id, { ...window, visible: window.isPublic })
    for (const event of events.filter(isMailedEvent)) {
      const item = items.get(event.data.id)
      const what = `${event.event} of ${item?.label ?? event.data.id}`
      if (item === undefined) {
        return yield* new Mismatch({ surface: "outbox", detail: `${what}: an item no act created` })
      }
      if (mailed.has(event.id) !== item.visible) {
        return yield* new Mismatch({
          surface: "subscriber mail",
          detail: item.visible
            ? `${what} is not mailed, though ${item.label} is public in the model`
            : `${what} is mailed to subscribers, though ${item.label} is private in the model`
        })
      }
      if (!mailed.has(event.id)) {
        stats.withheld++
        continue
      }
      stats.mailed++
      const message = notificationMail({
        event: event as MailedEvent,
        sender: { name: "Status", url: "https://status.example.test" },
        email: "reader@example.test",
        unsubscribeToken: "reader-token"
      })
      for (const [secret, secretWhat] of secrets) {
        if (`${message.subject}\n${message.text}\n${message.html}`.includes(secret)) {
          return yield* new Mismatch({ surface: `subscriber mail "${message.subject}"`, detail: `shows ${secretWhat}` })
        }
      }
    }
  })
