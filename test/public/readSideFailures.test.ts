/**
 * What a refresh of the public snapshot that cannot be done does to the writes around it: a
 * change notice anyone who may NOTIFY can send is read as "look again", never as a refresh that
 * fails from then on, and a write that has committed answers as committed whatever its refresh
 * met.
 */
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"

import { eventually } from "../support/Eventually.js"
import { holdTableLock, ownConnection } from "../support/TableLock.js"
import { freshDatabaseUrl, TestDatabaseUrl } from "../support/TestDatabase.js"
import { sendJson, TestStack } from "../support/TestServer.js"

/**
 * The stack on a database whose sessions wait at most 300 ms for a lock, as an operator may set
 * it: a statement that waits longer is cancelled (SQLSTATE 55P03), which is no lost connection.
 */
const Stack = Layer.unwrap(
  Effect.gen(function*() {
    const database = yield* freshDatabaseUrl
    const admin = yield* PgClient.make({ url: Redacted.make(database.url), maxConnections: 1 })
    yield* admin.unsafe(`alter database "${database.name}" set lock_timeout = '300ms'`)
    return TestStack(
      Layer.merge(
        ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: database.url })),
        Layer.succeed(TestDatabaseUrl, database.url)
      ),
      "None"
    )
  }).pipe(Effect.provide(Reactivity.layer))
)

const componentNames = Effect.map(
  sendJson("GET", "/api/v1/status/components"),
  (response) => (response.body as ReadonlyArray<{ name: string }>).map((component) => component.name)
)

layer(Stack, { excludeTestServices: true })("read side failures", (it) => {
  it.effect("a notice naming an incident id PostgreSQL cannot compare is read as touching everything", () =>
    Effect.gen(function*() {
      const sql = yield* ownConnection
      const created = yield* sendJson("POST", "/api/v1/admin/components", { name: "Before notice" })
      expect(created.status).toBe(201)
      // Renamed behind the service's back, then announced by "another instance" whose notice
      // names an id with a NUL (JSON carries it as an escape; PostgreSQL refuses it as text).
      yield* sql`update components set name = 'Renamed behind' where id = ${created.body.id}`
      const notice = JSON.stringify({ from: "elsewhere", touched: { components: true, incidents: ["x\u0000"] } })
      yield* sql`select pg_notify('status_page_changes', ${notice})`
      const names = yield* eventually(componentNames, (names) => names.includes("Renamed behind"))
      expect(names).toContain("Renamed behind")

      // And the snapshot goes on taking writes, each answered and shown at once.
      const after = yield* sendJson("POST", "/api/v1/admin/components", { name: "After notice" })
      expect(after.status).toBe(201)
      expect(yield* componentNames).toContain("After notice")
    }))

  it.effect("a write whose refresh the database cancels answers as committed, and shows with the next", () =>
    Effect.gen(function*() {
      const incident = yield* sendJson("POST", "/api/v1/admin/incidents", { title: "Cancelled refresh", message: "1" })
      expect(incident.status).toBe(201)

      // Another transaction holds the components table: the write does not read it, the refresh
      // after it does (which of the incident's components are public), and gives up after 300 ms.
      const release = yield* holdTableLock("components")
      const update = yield* sendJson("POST", `/api/v1/admin/incidents/${incident.body.id}/updates`, {
        status: "identified",
        message: "2"
      })
      yield* release
      // Committed: a 500 would have the client send it again.
      expect(update.status).toBe(201)
      expect(update.body.message).toBe("2")

      const next = yield* sendJson("POST", `/api/v1/admin/incidents/${incident.body.id}/updates`, {
        status: "monitoring",
        message: "3"
      })
      expect(next.status).toBe(201)
      const shown = yield* sendJson("GET", `/api/v1/status/incidents/${incident.body.id}`)
      expect(shown.body.updates.map((update: { message: string }) => update.message)).toEqual(["1", "2", "3"])
    }))
})
