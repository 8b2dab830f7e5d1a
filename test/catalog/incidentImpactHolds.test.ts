/**
 * An open incident holds the components whose status it set (`componentStatuses`): resolving
 * another incident with `restoreComponents` gives those nothing back, and the holder's own
 * resolution does. Naming a component without setting its status holds nothing, and neither
 * does a resolved incident or one that no longer names the component. Over the real API and
 * database.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import type { ComponentId } from "../../src/domain/Component.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const component = (name: string) =>
  Effect.flatMap(ApiClient, (client) => client.components.create({ payload: { name: `${name} ${Math.random()}` } }))

const statusOf = (id: ComponentId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ status: string }>`select status from components where id = ${id}`)
    .pipe(Effect.map((rows) => rows[0]?.status), Effect.orDie)

/** The component.status_changed events after `mark`, as "id: previous -> status". */
const statusChanges = (mark: string) =>
  Effect.map(
    outboxSince(mark),
    (rows) =>
      rows.filter((row) => row.event === "component.status_changed").map((row) =>
        `${row.payload.id}: ${row.payload.previousStatus} -> ${row.payload.status}`
      ).sort()
  )

const resolveRestoring = (id: string) =>
  Effect.flatMap(
    ApiClient,
    (client) => client.incidents.resolve({ params: { id: id as never }, payload: { restoreComponents: true } })
  )

it.layer(TestServer())("incident impact holds", (it) => {
  it.effect("a component another open incident set keeps its status until that incident is resolved", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const web = yield* component("Web")
      const database = yield* client.incidents.create({
        payload: { title: "Database down", message: "x", componentStatuses: { [api.id]: "major_outage" } }
      })
      const cdn = yield* client.incidents.create({
        payload: {
          title: "CDN slow",
          message: "x",
          componentStatuses: { [api.id]: "partial_outage", [web.id]: "degraded" }
        }
      })

      // The CDN is fixed; the database is not: the API keeps the outage, Web comes back.
      const mark = yield* outboxMark
      yield* resolveRestoring(cdn.id)
      expect(yield* statusOf(api.id)).toBe("partial_outage")
      expect(yield* statusOf(web.id)).toBe("operational")
      expect(yield* statusChanges(mark)).toEqual([`${web.id}: degraded -> operational`])

      // The holder's own resolution gives it back.
      const last = yield* outboxMark
      yield* resolveRestoring(database.id)
      expect(yield* statusOf(api.id)).toBe("operational")
      expect(yield* statusChanges(last)).toEqual([`${api.id}: partial_outage -> operational`])
    }))

  it.effect("a status set by an update holds too; naming a component, or no longer naming it, holds nothing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const api = yield* component("API")
      const web = yield* component("Web")
      const search = yield* component("Search")
      // Names all three, sets none of their statuses at creation.
      const about = yield* client.incidents.create({
        payload: { title: "About them", message: "x", componentIds: [api.id, web.id, search.id] }
      })
      // Then sets Search's status with an update, and Web's with a PUT it later takes back.
      yield* client.incidents.addUpdate({
        params: { id: about.id },
        payload: { status: "identified", message: "y", componentStatuses: { [search.id]: "degraded" } }
      })
      yield* client.incidents.update({
        params: { id: about.id },
        payload: { componentStatuses: { [web.id]: "degraded" } }
      })
      yield* client.incidents.update({ params: { id: about.id }, payload: { componentIds: [api.id, search.id] } })

      const outage = yield* client.incidents.create({
        payload: {
          title: "Outage",
          message: "x",
          componentStatuses: { [api.id]: "major_outage", [web.id]: "major_outage", [search.id]: "major_outage" }
        }
      })
      yield* resolveRestoring(outage.id)
      // API: only named by the other incident. Web: set by it, no longer named. Search: held.
      expect(yield* statusOf(api.id)).toBe("operational")
      expect(yield* statusOf(web.id)).toBe("operational")
      expect(yield* statusOf(search.id)).toBe("major_outage")

      // A resolved incident holds nothing.
      yield* client.incidents.resolve({ params: { id: about.id }, payload: {} })
      const again = yield* client.incidents.create({
        payload: { title: "Again", message: "x", componentStatuses: { [search.id]: "major_outage" } }
      })
      yield* resolveRestoring(again.id)
      expect(yield* statusOf(search.id)).toBe("operational")
    }))
})
