/**
 * The public snapshot holds the current state only: a refresh that keeps some of the previous
 * snapshot's responses must not keep the previous snapshot itself. Each refresh used to hold
 * the one before it (its lazy responses' closures shared a scope with it), so a service whose
 * monitors change state kept every snapshot it ever built: 120 copies of 500 components after
 * two minutes of checks.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { Database } from "../../src/persistence/Database.js"
import { SnapshotResponses } from "../../src/public/SnapshotResponses.js"
import { PublicSnapshot } from "../../src/public/state/PublicSnapshot.js"
import { Components } from "../../src/services/catalog/Components.js"
import { minimumLogLevel } from "../support/Logs.js"
import { testConfig } from "../support/TestDatabase.js"

setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void

/** A full collection, after the current job (WeakRefs are cleared only between jobs). */
const fullCollection = Effect.promise(async () => {
  for (let i = 0; i < 2; i++) {
    collectGarbage()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
})

const Stack = Layer.mergeAll(PublicSnapshot.layer, SnapshotResponses.layer, Components.layer).pipe(
  Layer.provideMerge(Database),
  Layer.provide(testConfig()),
  Layer.provideMerge(minimumLogLevel("Warn"))
)

layer(Stack, { excludeTestServices: true, timeout: 60_000 })("public snapshot memory", (it) => {
  it.effect("lets an earlier snapshot go once later ones replace it", () =>
    Effect.gen(function*() {
      const snapshots = yield* PublicSnapshot
      const components = yield* Components
      const responses = yield* SnapshotResponses
      const component = yield* components.create({ name: "API" })
      // Only a weak reference to the first snapshot: whatever else holds it keeps it alive.
      const first = new WeakRef(yield* snapshots.get)
      // Each snapshot's responses are made as a reader would ask for them, from the last ones made.
      responses.cachedNow("/api/v1/status")
      for (const status of ["degraded", "partial_outage", "operational"] as const) {
        yield* components.setStatus(component.id, status)
        responses.cachedNow("/api/v1/status")
      }
      const current = yield* snapshots.get
      expect(current.state.components.map((c) => c.status)).toEqual(["operational"])
      // The latest snapshot still answers from its responses, some of them taken from earlier ones.
      expect(responses.ofSnapshot(current, "/api/v1/status/incidents")?.body.toString()).toBe("[]")
      yield* fullCollection
      expect(first.deref()).toBeUndefined()
    }))
})
