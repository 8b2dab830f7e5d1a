import { request as httpRequest } from "node:http"

import { PgClient } from "@effect/sql-pg"
import { expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Context, DateTime, Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { Reactivity } from "effect/reactivity"
import { XMLParser, XMLValidator } from "fast-xml-parser"

import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, sendJson, TestServer, TestStack } from "../support/TestServer.js"

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.scoped)

const parser = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "item" || name === "entry" })

it.layer(TestServer({ PUBLIC_URL: "https://status.example.com" }))("public incidents, maintenance and feeds", (it) => {
  it.effect("shows incidents on public components or none, newest first, with paging, filter and the full timeline", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const internal = yield* client.components.create({ payload: { name: "Internal", isPublic: false } })
      const first = yield* client.incidents.create({
        payload: { title: "Web down", message: "Investigating", componentIds: [web.id, internal.id] }
      })
      const hidden = yield* client.incidents.create({
        payload: { title: "Internal only", message: "x", componentIds: [internal.id] }
      })
      const general = yield* client.incidents.create({
        payload: { title: "General", status: "monitoring", severity: "none", message: "Watching" }
      })
      yield* client.incidents.addUpdate({
        params: { id: first.id },
        payload: { status: "identified", message: "Cause found" }
      })
      yield* client.incidents.resolve({ params: { id: first.id }, payload: { message: "Fixed" } })

      const listed = yield* client.status.incidents({ query: {} })
      expect(listed.map((i) => i.title)).toEqual(["General", "Web down"])
      expect(listed[1]).toMatchObject({ componentIds: [web.id], status: "resolved", message: "Fixed" })
      expect(listed.map((i) => i.id)).not.toContain(hidden.id)
      expect((yield* client.status.incidents({ query: { limit: 1 } })).map((i) => i.title)).toEqual(["General"])
      expect((yield* client.status.incidents({ query: { limit: 1, offset: 1 } })).map((i) => i.title)).toEqual([
        "Web down"
      ])
      expect((yield* client.status.incidents({ query: { status: "resolved" } })).map((i) => i.title)).toEqual([
        "Web down"
      ])

      const detail = yield* sendJson("GET", `/api/v1/status/incidents/${first.id}`)
      expect(detail.status).toBe(200)
      expect(detail.body.updates.map((u: any) => Object.keys(u).sort())).toEqual(
        Array(3).fill(["createdAt", "id", "message", "status"])
      )
      expect(detail.body.updates.map((u: any) => [u.status, u.message])).toEqual([
        ["investigating", "Investigating"],
        ["identified", "Cause found"],
        ["resolved", "Fixed"]
      ])
      expect((yield* sendJson("GET", `/api/v1/status/incidents/${hidden.id}`)).status).toBe(404)
      expect((yield* sendJson("GET", "/api/v1/status/incidents/nope")).body).toEqual({
        _tag: "NotFound",
        message: "Incident \"nope\" was not found"
      })

      const summary = yield* client.status.summary()
      expect(summary.activeIncidents.map((i) => i.id)).toEqual([general.id])

      for (const query of ["limit=0", "limit=101", "limit=x", "limit=1.5", "offset=-1", "status=down"]) {
        const response = yield* sendJson("GET", `/api/v1/status/incidents?${query}`)
        expect(response.status, query).toBe(400)
        expect(response.body._tag, query).toBe("HttpApiDecodeError")
      }
    }))

  it.effect("lists upcoming and active public maintenance in the summary and the maintenance list", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const db = yield* client.components.create({ payload: { name: "DB" } })
      const hiddenComponent = yield* client.components.create({ payload: { name: "Hidden", isPublic: false } })
      const now = yield* DateTime.now
      const later = yield* client.maintenance.create({
        payload: {
          title: "Later",
          scheduledStart: DateTime.add(now, { days: 2 }),
          scheduledEnd: DateTime.add(now, { days: 3 }),
          componentIds: [db.id]
        }
      })
      const sooner = yield* client.maintenance.create({
        payload: {
          title: "Sooner",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 })
        }
      })
      yield* client.maintenance.create({
        payload: {
          title: "Private",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 }),
          componentIds: [hiddenComponent.id]
        }
      })
      const cancelled = yield* client.maintenance.create({
        payload: {
          title: "Cancelled",
          scheduledStart: DateTime.add(now, { days: 1 }),
          scheduledEnd: DateTime.add(now, { days: 2 })
        }
      })
      yield* client.maintenance.cancel({ params: { id: cancelled.id }, query: {} })

      const listed = yield* client.status.maintenance()
      expect(listed.map((w) => w.title)).toEqual(["Sooner", "Later"])
      expect(listed[1]).toMatchObject({ id: later.id, status: "scheduled", componentIds: [db.id] })
      expect((yield* client.status.summary()).upcomingMaintenance.map((w) => w.id)).toEqual([sooner.id, later.id])
    }))

  it.effect("serves pre-encoded bytes with ETag, Cache-Control and 304, and a changed ETag after a change", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/api/v1/status",
          "/api/v1/status/components",
          "/api/v1/status/incidents",
          "/api/v1/status/maintenance",
          "/api/v1/status/rss"
        ]
      ) {
        const first = yield* get(path)
        expect(first.status, path).toBe(200)
        expect(first.headers["cache-control"]).toMatch(/^public, max-age=\d+$/)
        const etag = first.headers["etag"]!
        expect(etag).toMatch(/^".+"$/)
        const again = yield* get(path, { "if-none-match": etag })
        expect(again.status, path).toBe(304)
        expect(again.text).toBe("")
      }
      const before = (yield* get("/api/v1/status")).headers["etag"]
      const client = yield* ApiClient
      yield* client.components.create({ payload: { name: "New" } })
      const after = yield* get("/api/v1/status", { "if-none-match": before! })
      expect(after.status).toBe(200)
      expect(JSON.parse(after.text).components.map((c: any) => c.name)).toContain("New")
      // Query strings go through the router, with the same headers.
      const paged = yield* get("/api/v1/status/incidents?limit=5")
      expect(paged.status).toBe(200)
      expect((yield* get("/api/v1/status/incidents?limit=5", { "if-none-match": paged.headers["etag"]! })).status).toBe(
        304
      )
    }))

  it.effect("publishes valid RSS 2.0 and Atom feeds with stable ids, public links and the latest update", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Feed <test> & co", message: "Started" } })
      yield* client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "monitoring", message: "Latest \u0001news" }
      })

      const rss = yield* get("/api/v1/status/rss")
      expect(rss.headers["content-type"]).toMatch(/^application\/rss\+xml/)
      expect(XMLValidator.validate(rss.text)).toBe(true)
      const channel = parser.parse(rss.text).rss.channel
      expect(parser.parse(rss.text).rss["@_version"]).toBe("2.0")
      const item = channel.item.find((i: any) => i.link === `https://status.example.com/incidents/${incident.id}`)
      expect(item.title).toContain("Feed <test> & co")
      expect(item.description).toBe("monitoring: Latest news")
      expect(item.guid["#text"]).toBe(`https://status.example.com/incidents/${incident.id}`)
      expect(new Date(item.pubDate).toString()).not.toBe("Invalid Date")
      expect(channel.item.some((i: any) => String(i.link).startsWith("https://status.example.com/maintenance/"))).toBe(
        true
      )

      const atom = yield* get("/api/v1/status/atom")
      expect(atom.headers["content-type"]).toMatch(/^application\/atom\+xml/)
      expect(XMLValidator.validate(atom.text)).toBe(true)
      const feed = parser.parse(atom.text).feed
      expect(feed["@_xmlns"]).toBe("http://www.w3.org/2005/Atom")
      const entry = feed.entry.find((e: any) => e.id === `https://status.example.com/incidents/${incident.id}`)
      expect(entry.summary).toBe("monitoring: Latest news")
      expect(entry.link["@_href"]).toBe(`https://status.example.com/incidents/${incident.id}`)

      // The guid does not change with later updates.
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      const later = parser.parse((yield* get("/api/v1/status/rss")).text).rss.channel
      const same = later.item.find((i: any) => i.guid["#text"] === item.guid["#text"])
      expect(same.description).toBe("resolved: This incident has been resolved.")
    }))

  it.effect("lists 20 incidents, newest first, when no limit is given", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const created = []
      for (let i = 1; i <= 21; i++) {
        created.push(yield* client.incidents.create({ payload: { title: `Default page ${i}`, message: "m" } }))
      }
      const newest = created.toReversed().slice(0, 20).map((incident) => incident.id)
      // The exact path (the snapshot's pre-encoded list) and a query through the router.
      const listed = yield* client.status.incidents({ query: {} })
      expect(listed.map((incident) => incident.id)).toEqual(newest)
      const routed = yield* get("/api/v1/status/incidents?offset=0")
      expect(JSON.parse(routed.text).map((incident: { id: string }) => incident.id)).toEqual(newest)
      const more = yield* client.status.incidents({ query: { limit: 21 } })
      expect(more.map((incident) => incident.id)).toEqual(created.toReversed().map((incident) => incident.id))
    }))
})

/** A plain GET on a port, outside any Effect HttpClient. */
const raw = (port: number, path: string) =>
  Effect.callback<{ status: number; body: string }>((resume) => {
    const req = httpRequest({ host: "127.0.0.1", port, path }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (chunk) => (body += chunk)).on("end", () =>
        resume(Effect.succeed({ status: res.statusCode!, body })))
    })
    req.end()
  })

// Real time, two instances of the service on one fresh database, each with its own snapshot.
layer(Layer.empty, { excludeTestServices: true })("snapshot across instances", (it) => {
  const twoInstances = Effect.gen(function*() {
    const database = yield* freshDatabaseUrl
    const instance = TestStack(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: database.url })))
    // Each Layer.build has its own memo map: two servers, two snapshots, two StateChanges.
    const a = yield* Layer.build(instance)
    const b = yield* Layer.build(instance)
    const portOf = (context: Context.Context<HttpServer.HttpServer>) => {
      const address = Context.get(context, HttpServer.HttpServer).address
      return address._tag === "UnixPathAddress" ? 0 : address.port
    }
    expect(portOf(a)).not.toBe(portOf(b))
    // B builds its snapshot first.
    expect(JSON.parse((yield* raw(portOf(b), "/api/v1/status")).body).activeIncidents).toEqual([])
    /**
     * Creates an incident through A; true once B's public summary shows it (B rebuilds its
     * snapshot only when told of a change), false if it has not after 15 s.
     */
    const seenByB = (title: string) =>
      Effect.gen(function*() {
        const created = yield* Effect.flatMap(ApiClient, (client) =>
          client.incidents.create({ payload: { title, message: "x" } })).pipe(
            Effect.provide(a)
          )
        const deadline = Date.now() + 15_000
        while (Date.now() < deadline) {
          const summary = JSON.parse((yield* raw(portOf(b), "/api/v1/status")).body)
          if (
            summary.activeIncidents.some((incident: { id: string }) =>
              incident.id === created.id
            )
          ) return true
          yield* Effect.sleep("20 millis")
        }
        return false
      })
    return { database, seenByB }
  })

  it.effect(
    "a change through one instance reaches another's public reads through LISTEN/NOTIFY",
    () =>
      Effect.gen(function*() {
        const { seenByB } = yield* twoInstances
        // B also looks again when it starts listening: once it has shown a first change, it
        // listens, and only a NOTIFY tells it of the second.
        expect(yield* seenByB("Seen by B")).toBe(true)
        expect(yield* seenByB("Seen by B again")).toBe(true)
      }),
    60_000
  )

  it.effect(
    "an instance listens again after its connections were terminated (a database restart)",
    () =>
      Effect.gen(function*() {
        const { database, seenByB } = yield* twoInstances
        const admin = yield* PgClient.make({ url: Redacted.make(database.url), maxConnections: 1 })
        yield* admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database.name} and pid <> pg_backend_pid()`
        // The lost LISTEN connection is noticed at once and opened again a second later.
        expect(yield* seenByB("Seen by B after the restart")).toBe(true)
      }).pipe(Effect.provide(Reactivity.layer)),
    30_000
  )
})
