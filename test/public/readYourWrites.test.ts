/**
 * Read-your-writes on the instance that took the write, while others write at the same time,
 * and what the snapshot's refreshes (each reading again only what its changes touched) add up
 * to: the same public answers as a snapshot built afresh from the database, on the instance
 * that took the writes and on one that followed them through LISTEN/NOTIFY.
 */
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, DateTime, Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { Reactivity } from "effect/reactivity"

import type { ComponentId, ComponentStatus } from "../../src/domain/Component.js"
import type { IncidentId } from "../../src/domain/Incident.js"
import { heldResolved } from "../../src/public/state/PublicStatus.js"
import { eventually } from "../support/Eventually.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, TestStack } from "../support/TestServer.js"

/** An instance of the whole HTTP stack on the database at `url`: each build has its own snapshot and StateChanges. */
const instanceOn = (url: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      TestStack(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url })))
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "UnixPathAddress" ? 0 : address.port
    const read = (path: string) =>
      Effect.promise(async () => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`)
        return { status: response.status, text: await response.text() }
      })
    return {
      client: yield* Effect.provide(ApiClient, context),
      read,
      json: (path: string) => Effect.map(read(path), (response) => JSON.parse(response.text))
    }
  })

const statuses: ReadonlyArray<ComponentStatus> = ["degraded", "partial_outage", "major_outage", "operational"]

layer(Layer.empty, { excludeTestServices: true })("read your writes", (it) => {
  it.effect(
    "each write shows in the public reads of the instance that took it as soon as it answers, while others write",
    () =>
      Effect.gen(function*() {
        const { client, json } = yield* instanceOn((yield* freshDatabaseUrl).url)
        const hidden = yield* client.components.create({ payload: { name: "Hidden", isPublic: false } })
        const summary = json("/api/v1/status")
        const detail = (id: string) => json(`/api/v1/status/incidents/${id}`)

        // Each operator changes its own component and incident, so what it reads back is its own.
        const operator = (n: number) =>
          Effect.gen(function*() {
            const component = yield* client.components.create({ payload: { name: `Operator ${n}` } })
            const incident = yield* client.incidents.create({
              payload: { title: `Incident ${n}`, message: "Started", componentIds: [component.id] }
            })
            expect((yield* summary).activeIncidents.map((active: { id: string }) => active.id)).toContain(incident.id)
            for (let i = 0; i < 6; i++) {
              const status = statuses[(n + i) % statuses.length]!
              yield* client.components.setStatus({ params: { id: component.id }, payload: { status } })
              const shown = (yield* summary).components.find((c: { id: string }) => c.id === component.id)
              expect(shown.status).toBe(status)

              const message = `Operator ${n}, note ${i}`
              yield* client.incidents.addUpdate({
                params: { id: incident.id },
                payload: { status: "identified", message }
              })
              const active = (yield* summary).activeIncidents.find((a: { id: string }) => a.id === incident.id)
              expect(active.message).toBe(message)
              expect((yield* detail(incident.id)).updates.at(-1).message).toBe(message)

              yield* client.incidents.update({ params: { id: incident.id }, payload: { title: `Incident ${n}.${i}` } })
              expect((yield* detail(incident.id)).title).toBe(`Incident ${n}.${i}`)
            }
            // Statuses set by an incident show with it.
            const outage = yield* client.incidents.create({
              payload: { title: `Outage ${n}`, message: "Down", componentStatuses: { [component.id]: "major_outage" } }
            })
            const during = yield* summary
            expect(during.activeIncidents.map((active: { id: string }) => active.id)).toContain(outage.id)
            expect(during.components.find((c: { id: string }) => c.id === component.id).status).toBe("major_outage")
            yield* client.incidents.resolve({ params: { id: outage.id }, payload: { restoreComponents: true } })
            const after = yield* summary
            expect(after.activeIncidents.map((active: { id: string }) => active.id)).not.toContain(outage.id)
            expect(after.components.find((c: { id: string }) => c.id === component.id).status).toBe("operational")
            expect((yield* detail(outage.id)).status).toBe("resolved")

            // Naming only a private component hides the incident at once.
            yield* client.incidents.update({ params: { id: incident.id }, payload: { componentIds: [hidden.id] } })
            expect((yield* summary).activeIncidents.map((active: { id: string }) => active.id)).not.toContain(
              incident.id
            )
            expect((yield* detail(incident.id))._tag).toBe("NotFound")

            yield* client.components.update({ params: { id: component.id }, payload: { name: `Renamed ${n}` } })
            const names = (yield* json("/api/v1/status/components")).map((c: { name: string }) => c.name)
            expect(names).toContain(`Renamed ${n}`)
            const day = 24 * 3600 * 1000
            const window = yield* client.maintenance.create({
              payload: {
                title: `Window ${n}`,
                scheduledStart: DateTime.makeUnsafe(Date.now() + day),
                scheduledEnd: DateTime.makeUnsafe(Date.now() + day + 3600 * 1000),
                componentIds: [component.id]
              }
            })
            const windows = (yield* json("/api/v1/status/maintenance")).map((w: { id: string }) => w.id)
            expect(windows).toContain(window.id)
          })
        yield* Effect.all(Array.from({ length: 6 }, (_, n) => operator(n)), { concurrency: "unbounded" })
      }),
    120_000
  )

  it.effect(
    "a snapshot refreshed change by change answers as one built afresh, here and on an instance that followed",
    () =>
      Effect.gen(function*() {
        const database = yield* freshDatabaseUrl
        const a = yield* instanceOn(database.url)
        const b = yield* instanceOn(database.url)
        const sql = yield* PgClient.make({ url: Redacted.make(database.url), maxConnections: 1 }).pipe(
          Effect.provide(Reactivity.layer)
        )
        const web = yield* a.client.components.create({ payload: { name: "Web" } })
        const api = yield* a.client.components.create({ payload: { name: "API" } })
        const hidden = yield* a.client.components.create({ payload: { name: "Hidden", isPublic: false } })

        // More history than a snapshot holds, written behind the instances' backs and announced
        // without saying what changed (as an instance of an older version does): both read everything.
        const old = heldResolved + 30
        yield* sql`
          insert into incidents (id, title, status, severity, created_at, updated_at, resolved_at, chosen_public)
          select 'old-' || lpad(g::text, 3, '0'), 'Old incident ' || g, 'resolved', 'minor',
            now() - g * interval '1 day', now() - g * interval '1 day' + interval '1 hour',
            now() - g * interval '1 day' + interval '1 hour', true
          from generate_series(1, ${old}) g`
        yield* sql`
          insert into incident_updates (incident_id, status, message, created_at)
          select 'old-' || lpad(g::text, 3, '0'), 'resolved', 'Fixed ' || g, now() - g * interval '1 day'
          from generate_series(1, ${old}) g`
        yield* sql`select pg_notify('status_page_changes', 'elsewhere')`
        for (const instance of [a, b]) {
          const oldest = yield* eventually(
            instance.read(`/api/v1/status/incidents/old-${old}`),
            (r) => r.status === 200
          )
          expect(oldest.status).toBe(200)
        }

        // Created one after the other: two incidents created in the same millisecond may be
        // held in an order of their own (the database's is by microsecond).
        const open = yield* a.client.incidents.create({
          payload: { title: "Open", message: "Investigating", componentIds: [web.id] }
        })
        const impact = yield* a.client.incidents.create({
          payload: { title: "Impact", message: "Slow", componentStatuses: { [api.id]: "degraded" } }
        })
        const toHide = yield* b.client.incidents.create({
          payload: { title: "To hide", message: "x", componentIds: [web.id] }
        })
        const draft = yield* a.client.incidents.create({
          payload: { title: "Draft", message: "Not yet", published: false }
        })
        const postmortem = yield* b.client.incidents.create({ payload: { title: "Postmortem", message: "x" } })
        yield* b.client.incidents.resolve({ params: { id: postmortem.id }, payload: null })
        const group = yield* a.client.componentGroups.create({ payload: { name: "Core" } })
        const day = 24 * 3600 * 1000
        const window = yield* b.client.maintenance.create({
          payload: {
            title: "Upgrade",
            scheduledStart: DateTime.makeUnsafe(Date.now() + day),
            scheduledEnd: DateTime.makeUnsafe(Date.now() + day + 3600 * 1000),
            componentIds: [web.id]
          }
        })
        const setStatus = (id: ComponentId, status: ComponentStatus) =>
          a.client.components.setStatus({ params: { id }, payload: { status } })

        // Showing or hiding a component touches everything.
        yield* a.client.components.update({ params: { id: hidden.id }, payload: { isPublic: true } })
        yield* a.client.components.update({ params: { id: hidden.id }, payload: { isPublic: false } })

        // Then changes of every kind at once, through both instances, each touching a part.
        yield* Effect.all([
          Effect.forEach(statuses, (status) => setStatus(web.id, status)),
          Effect.andThen(
            a.client.incidents.addUpdate({
              params: { id: open.id },
              payload: { status: "monitoring", message: "Better" }
            }),
            a.client.incidents.update({ params: { id: open.id }, payload: { title: "Open, renamed" } })
          ),
          b.client.incidents.addUpdate({
            params: { id: impact.id },
            payload: { status: "resolved", message: "Fixed", restoreComponents: true }
          }),
          // Hidden while some incidents are not held: the snapshot reads its incidents again (one
          // that was not held may now be among the newest resolved ones).
          b.client.incidents.update({ params: { id: toHide.id }, payload: { componentIds: [hidden.id] } }),
          a.client.incidents.update({
            params: { id: "old-002" as IncidentId },
            payload: { componentIds: [hidden.id] }
          }),
          a.client.incidents.publish({ params: { id: draft.id } }),
          b.client.incidents.setPostmortem({
            params: { id: postmortem.id },
            payload: { body: "## What happened\n\nA cable.", published: true }
          }),
          // Old incidents the snapshot holds, and one it does not.
          a.client.incidents.update({ params: { id: "old-001" as IncidentId }, payload: { title: "Old, renamed" } }),
          b.client.incidents.update({ params: { id: `old-${old}` as IncidentId }, payload: { severity: "major" } }),
          a.client.components.update({ params: { id: api.id }, payload: { name: "API v2", groupId: group.id } }),
          // A change names its components: a new one, and one moved in the order, are placed as
          // the database orders them; the others are read again in their places.
          b.client.components.create({ payload: { name: "Billing" } }),
          a.client.components.update({ params: { id: web.id }, payload: { displayOrder: 50 } }),
          b.client.componentGroups.update({ params: { id: group.id }, payload: { name: "Core services" } }),
          a.client.maintenance.update({ params: { id: window.id }, payload: { title: "Upgrade, moved" } }),
          Effect.flatMap(
            b.client.organization.get(),
            (organization) =>
              b.client.organization.update({ params: { id: organization.id }, payload: { name: "Acme" } })
          )
        ], { concurrency: "unbounded" })

        const fresh = yield* instanceOn(database.url)
        const ids = (yield* sql<{ id: string }>`select id from incidents order by id`).map((row) => row.id)
        const paths = [
          "/api/v1/status",
          "/api/v1/status/components",
          "/api/v1/status/maintenance",
          "/api/v1/status/incidents",
          "/api/v1/status/incidents?limit=100",
          "/api/v1/status/incidents?offset=90&limit=30",
          "/api/v1/status/incidents?status=resolved&limit=100",
          "/api/v1/status/incidents?status=monitoring",
          "/api/v1/status/rss",
          "/api/v1/status/atom",
          ...ids.map((id) => `/api/v1/status/incidents/${id}`)
        ]
        const answers = (instance: typeof a) => Effect.forEach(paths, (path) => instance.read(path))
        const expected = yield* answers(fresh)
        expect(expected[paths.indexOf("/api/v1/status/rss")]!.text).toContain("Acme")
        // A answered every write it took once its snapshot showed it; B's own reached it by NOTIFY.
        for (const instance of [a, b]) {
          const actual = yield* eventually(
            answers(instance),
            (got) => got.every((answer, i) => answer.text === expected[i]!.text),
            15_000
          )
          paths.forEach((path, i) => expect(actual[i], path).toEqual(expected[i]))
        }
      }),
    120_000
  )
})
