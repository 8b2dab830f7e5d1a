/**
 * The public snapshot's freshness rules: readers never wait for a refresh once a snapshot
 * exists (they get the previous one meanwhile), a write's response waits until this instance's
 * snapshot shows it, and incidents older than the snapshot holds are read on demand with the
 * same answers.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

import { heldResolved } from "../../src/public/state/PublicStatus.js"
import { eventually } from "../support/Eventually.js"
import { holdTableLock, ownConnection } from "../support/TableLock.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, etag: response.headers["etag"], text: yield* response.text }
  }).pipe(Effect.scoped)

const getJson = (url: string) => Effect.map(get(url), (response) => JSON.parse(response.text))

it.layer(TestServer())("public snapshot freshness", (it) => {
  it.effect("serves the previous snapshot while a refresh is held up, and answers the write once the refresh is done", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Held up", message: "Before" } })
      const messages = Effect.map(
        getJson("/api/v1/status"),
        (summary) => summary.activeIncidents.map((active: { message: string }) => active.message)
      )
      expect(yield* messages).toEqual(["Before"])
      // The page is rendered (its uptime read) before the lock, and stays current while the snapshot does.
      expect((yield* get("/")).status).toBe(200)

      // Another transaction holds the components table: the write does not read it, but the
      // refresh after it does (which of the incident's components are public).
      const release = yield* holdTableLock("components")

      // The write commits; its response waits for the refresh.
      const write = yield* client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "During" }
      }).pipe(Effect.forkChild)
      // Readers meanwhile get the previous snapshot at once: the fast path and the Effect handlers.
      for (let i = 0; i < 5; i++) {
        expect(yield* messages).toEqual(["Before"])
        expect((yield* get("/api/v1/status/incidents?limit=5")).status).toBe(200)
        expect((yield* get("/")).status).toBe(200)
      }
      expect(write.pollUnsafe()).toBeUndefined()

      yield* release
      yield* Fiber.join(write)
      // Read-your-writes: the response came once the snapshot included the change.
      expect(yield* messages).toEqual(["During"])
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
    }))

  it.effect("shows each write in the public reads as soon as its response arrives", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Read your writes", message: "Started" } })
      for (let i = 0; i < 10; i++) {
        yield* client.incidents.addUpdate({
          params: { id: incident.id },
          payload: { status: "monitoring", message: `Note ${i}` }
        })
        const detail = yield* getJson(`/api/v1/status/incidents/${incident.id}`)
        expect(detail.updates.at(-1).message).toBe(`Note ${i}`)
        const summary = yield* getJson("/api/v1/status")
        expect(summary.activeIncidents.find((active: { id: string }) => active.id === incident.id).message).toBe(
          `Note ${i}`
        )
      }
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      expect((yield* getJson("/api/v1/status")).activeIncidents).toEqual([])
    }))

  it.effect("answers for incidents older than the snapshot holds from the database: paging, filters, details, history, feeds", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* ownConnection
      const old = heldResolved + 30
      // Resolved incidents a day apart, the newest yesterday, each with a timeline of three entries.
      yield* sql`
        insert into incidents (id, title, status, severity, created_at, updated_at, resolved_at, chosen_public)
        select 'old-' || lpad(g::text, 3, '0'), 'Old incident ' || g, 'resolved', 'minor',
          now() - g * interval '1 day', now() - g * interval '1 day' + interval '1 hour', now() - g * interval '1 day' + interval '1 hour',
          true
        from generate_series(1, ${old}) g`
      yield* sql`
        insert into incident_updates (incident_id, status, message, created_at)
        select 'old-' || lpad(g::text, 3, '0'), (array['investigating', 'monitoring', 'resolved'])[k], 'Entry ' || k || ' of ' || g,
          now() - g * interval '1 day' + k * interval '10 minutes'
        from generate_series(1, ${old}) g, generate_series(1, 3) k`
      // Written behind the service's back, then announced as another instance's change that
      // does not say what it touched: the snapshot reads everything again.
      yield* sql`select pg_notify('status_page_changes', 'elsewhere')`
      yield* eventually(getJson(`/api/v1/status/incidents/old-${old}`), (found) => found.title !== undefined)
      const open = yield* client.incidents.create({ payload: { title: "Open now", message: "Investigating" } })

      // Newest first: the open one, any the suite made before, then the old ones.
      const all = (yield* sql<{ id: string }>`select id from incidents order by created_at desc, id desc`).map((row) =>
        row.id
      )
      const resolved = all.filter((id) => id !== open.id)
      expect(all.length).toBeGreaterThan(heldResolved + 20)
      const ids = (url: string) =>
        Effect.map(getJson(url), (list) => list.map((incident: { id: string }) => incident.id))
      // Pages within the snapshot, straddling its end, and beyond it.
      expect(yield* ids("/api/v1/status/incidents?limit=100")).toEqual(all.slice(0, 100))
      expect(yield* ids("/api/v1/status/incidents?offset=90&limit=30")).toEqual(all.slice(90, 120))
      expect(yield* ids(`/api/v1/status/incidents?offset=${all.length - 5}&limit=100`)).toEqual(all.slice(-5))
      expect(yield* ids(`/api/v1/status/incidents?offset=${all.length}`)).toEqual([])
      // Any offset >= 0: one past what PostgreSQL's OFFSET takes is an empty page too.
      for (const offset of ["2147483648", String(Number.MAX_SAFE_INTEGER)]) {
        expect(yield* ids(`/api/v1/status/incidents?offset=${offset}`), offset).toEqual([])
      }
      expect(yield* ids("/api/v1/status/incidents?status=resolved&offset=95&limit=10")).toEqual(resolved.slice(95, 105))
      expect(yield* ids("/api/v1/status/incidents?status=investigating&offset=0")).toEqual([open.id])
      // The same JSON from memory and from the database.
      const fromMemory = (yield* getJson("/api/v1/status/incidents?limit=100")).slice(90)
      expect((yield* getJson("/api/v1/status/incidents?offset=90&limit=30")).slice(0, 10)).toEqual(fromMemory)

      // The oldest incident's detail, with its timeline, ETag and 304.
      const oldest = all.at(-1)!
      const detail = yield* get(`/api/v1/status/incidents/${oldest}`)
      expect(detail.status).toBe(200)
      expect(JSON.parse(detail.text).updates.map((u: { message: string }) => u.message)).toEqual(
        [1, 2, 3].map((k) => `Entry ${k} of ${old}`)
      )
      expect((yield* get(`/api/v1/status/incidents/${oldest}`, { "if-none-match": detail.etag! })).status).toBe(304)
      expect((yield* get("/api/v1/status/incidents/old-999")).status).toBe(404)
      // An id PostgreSQL cannot hold (NUL) is a 404 too, not a failed query (found by the fuzzer).
      expect((yield* get("/api/v1/status/incidents/a%00b")).status).toBe(404)
      expect((yield* get("/incidents/a%00b")).status).toBe(404)

      // The status page's history pages the whole history; its incident pages reach the oldest.
      const pages = Math.ceil(all.length / 20)
      const last = yield* get(`/history?page=${pages}`)
      expect(last.status).toBe(200)
      expect(last.text).toContain(`Page ${pages} of ${pages}`)
      expect(last.text).toContain(`Old incident ${old}<`)
      expect((yield* get(`/history?page=${pages + 1}`)).status).toBe(404)
      const page = yield* get(`/incidents/${oldest}`)
      expect(page.status).toBe(200)
      expect(page.text).toContain(`Entry 2 of ${old}`)

      // An old incident changed now is among the feeds' latest items.
      yield* client.incidents.update({ params: { id: oldest as never }, payload: { title: "Old incident, renamed" } })
      expect((yield* get("/api/v1/status/rss")).text).toContain("Old incident, renamed")
      expect(JSON.parse((yield* get(`/api/v1/status/incidents/${oldest}`)).text).title).toBe("Old incident, renamed")
    }))
})
