/**
 * Public reads for unknown incident ids and pages past the end are answered from memory: with a
 * history longer than the snapshot holds, the database is taken away and they are still 404 (or
 * an empty page), while a read of an old incident that does exist shows the database is away.
 */
import { randomUUID } from "node:crypto"

import { expect, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"

import { heldResolved } from "../../src/public/state/PublicStatus.js"
import { ApiClient, DatabaseProxy, sendJson, TestStackBehindProxy } from "../support/TestServer.js"

// Real time: the pool reconnects on its own schedule.
layer(TestStackBehindProxy, { excludeTestServices: true })("public misses", (it) => {
  it.effect(
    "unknown incidents and pages past the end cost no query: answered while the database is away",
    () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const sql = yield* SqlClient.SqlClient
        const old = heldResolved + 20
        // A history longer than the snapshot holds, written behind the service's back.
        yield* sql`
        insert into incidents (id, title, status, severity, created_at, updated_at, resolved_at, chosen_public)
        select 'old-' || g, 'Old incident ' || g, 'resolved', 'minor', now() - g * interval '1 day',
          now() - g * interval '1 day', now() - g * interval '1 day', true
        from generate_series(1, ${old}) g`
        yield* sql`
        insert into incident_updates (incident_id, status, message, created_at)
        select 'old-' || g, 'resolved', 'Fixed', now() - g * interval '1 day' from generate_series(1, ${old}) g`
        // Announced as another instance's change that does not say what it touched: the
        // snapshot reads everything again.
        yield* sql`select pg_notify('status_page_changes', 'elsewhere')`
        yield* sendJson("GET", `/api/v1/status/incidents/old-${old}`).pipe(
          Effect.filterOrFail((response) => response.status === 200),
          Effect.retry({ times: 100, schedule: Schedule.spaced("50 millis") })
        )
        const open = yield* client.incidents.create({ payload: { title: "Open now", message: "Investigating" } })
        const total = old + 1
        const pages = Math.ceil(total / 20)
        // The first miss after a rebuild reads the index of public incidents once.
        expect((yield* sendJson("GET", `/api/v1/status/incidents/${randomUUID()}`)).status).toBe(404)
        expect((yield* sendJson("GET", `/history?page=${pages}`)).status).toBe(200)

        const proxy = yield* DatabaseProxy
        yield* Effect.promise(proxy.cut)
        // The database is away: an old incident the snapshot does not hold cannot be read.
        expect((yield* sendJson("GET", `/api/v1/status/incidents/old-${old}`)).status).toBe(503)

        for (let i = 0; i < 20; i++) {
          const id = randomUUID()
          const api = yield* sendJson("GET", `/api/v1/status/incidents/${id}`)
          expect(api.status, id).toBe(404)
          expect(api.body).toEqual({ _tag: "NotFound", message: `Incident "${id}" was not found` })
          expect((yield* sendJson("GET", `/incidents/${id}`)).status, id).toBe(404)
        }
        for (const query of [`offset=${total}`, "offset=100000&limit=100", `status=resolved&offset=${old}`]) {
          const page = yield* sendJson("GET", `/api/v1/status/incidents?${query}`)
          expect(page.status, query).toBe(200)
          expect(page.body, query).toEqual([])
        }
        for (const page of [pages + 1, 999]) {
          expect((yield* sendJson("GET", `/history?page=${page}`)).status, String(page)).toBe(404)
        }
        // What the snapshot holds is still served.
        const summary = yield* sendJson("GET", "/api/v1/status")
        expect(summary.body.activeIncidents.map((incident: { id: string }) => incident.id)).toEqual([open.id])

        yield* Effect.promise(proxy.restore)
        const detail = yield* sendJson("GET", `/api/v1/status/incidents/old-${old}`).pipe(
          Effect.filterOrFail((response) => response.status === 200),
          Effect.retry({ times: 25, schedule: Schedule.spaced("200 millis") })
        )
        expect(detail.body.title).toBe(`Old incident ${old}`)
      }),
    30_000
  )
})
