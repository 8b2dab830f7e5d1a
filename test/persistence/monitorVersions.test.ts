/**
 * The version the scheduler reloads a monitor by (MonitorsRepo.versions, versionsDigest): every
 * write of what the monitor is changes it, through the API or in SQL behind its back; ingest's
 * state transitions do not, so a monitor going down or up does not make the next reload read
 * every monitor again.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { MonitorsRepo } from "../../src/persistence/MonitorsRepo.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

it.layer(MonitorsRepo.layer.pipe(Layer.provideMerge(TestServer())))("a monitor's version", (it) => {
  it.effect("changes with every write of its definition, not with its state", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const repo = yield* MonitorsRepo
      const component = yield* client.components.create({ payload: { name: "Versions" } })
      const monitor = yield* client.monitors.create({
        payload: { componentId: component.id, type: "http", url: "http://127.0.0.1:9/a", intervalSeconds: 60 }
      })
      const versionOf = Effect.map(repo.versions(), (all) => all.find((row) => row.id === monitor.id)?.version)
      const seen = { version: yield* versionOf, digest: yield* repo.versionsDigest() }
      expect(seen.version).toBeDefined()
      const expectChanged = (changed: boolean) =>
        Effect.gen(function*() {
          const now = { version: yield* versionOf, digest: yield* repo.versionsDigest() }
          if (changed) {
            expect(now.version).not.toBe(seen.version)
            expect(now.digest).not.toBe(seen.digest)
          } else {
            expect(now).toEqual(seen)
          }
          Object.assign(seen, now)
        })

      // Ingest's transitions (MonitorStateRepo.applyTransitions) write the state alone.
      yield* sql`update monitors set state = 'down', state_changed_at = now() where id = ${monitor.id}`
      yield* expectChanged(false)
      yield* sql`update monitors set state = 'up', state_changed_at = now() where id = ${monitor.id}`
      yield* expectChanged(false)

      yield* client.monitors.update({ params: { id: monitor.id }, payload: { url: "http://127.0.0.1:9/b" } })
      yield* expectChanged(true)
      // Behind the API's back, even without touching updated_at.
      yield* sql`update monitors set url = 'http://127.0.0.1:9/c' where id = ${monitor.id}`
      yield* expectChanged(true)
      yield* sql`update monitors set resumed_at = now() where id = ${monitor.id}`
      yield* expectChanged(true)
      // A write that changes nothing at all leaves it.
      yield* sql`update monitors set url = url where id = ${monitor.id}`
      yield* expectChanged(false)
    }))
})
