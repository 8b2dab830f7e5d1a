import { expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"

import { ComponentId } from "../../src/domain/Component.js"
import { BadRequest } from "../../src/domain/Errors.js"
import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const Changes = Layer.mergeAll(StateChanges.layer, OutboxRepo.layer)

it.layer(TestServer())("outbox", (it) => {
  it.effect("an event commits with its change and disappears with a change that fails or dies after it", () =>
    Effect.gen(function*() {
      const changes = yield* StateChanges
      const outbox = yield* OutboxRepo
      const mark = yield* outboxMark
      const data = { id: "c1", name: "Probe", previousStatus: "operational", status: "degraded" }

      const failed = yield* Effect.exit(changes.commit(
        Effect.andThen(
          outbox.append("component.status_changed", data, ["c1"]),
          Effect.fail(new BadRequest({ message: "no" }))
        )
      ))
      expect(Exit.isFailure(failed)).toBe(true)
      const died = yield* Effect.exit(changes.commit(
        Effect.andThen(outbox.append("component.status_changed", data, ["c1"]), Effect.die(new Error("crash")))
      ))
      expect(Exit.isFailure(died)).toBe(true)
      expect(yield* outboxSince(mark)).toEqual([])

      const before = changes.version()
      yield* changes.commit(outbox.append("component.status_changed", data, ["c1"]))
      expect(changes.version()).toBeGreaterThan(before)
      expect((yield* outboxSince(mark)).map((e) => [e.event, e.payload, e.componentIds])).toEqual([
        ["component.status_changed", data, ["c1"]]
      ])
    }).pipe(Effect.provide(Changes, { local: true })))

  it.effect("a refused incident update changes nothing and announces nothing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Kept" } })
      const incident = yield* client.incidents.create({
        payload: { title: "Before", message: "x", componentIds: [component.id] }
      })
      const mark = yield* outboxMark
      // The title is valid, the component is not: the whole update is refused.
      const refused = yield* Effect.result(
        client.incidents.update({
          params: { id: incident.id },
          payload: { title: "After", componentIds: [ComponentId.make("missing")] }
        })
      )
      expect(refused._tag).toBe("Failure")
      const after = yield* client.incidents.get({ params: { id: incident.id } })
      expect(after).toMatchObject({ title: "Before", componentIds: [component.id] })
      expect(yield* outboxSince(mark)).toEqual([])
    }))
})
