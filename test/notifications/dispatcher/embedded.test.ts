/**
 * The dispatcher on the embedded default (`npm start` with no DATABASE_URL): PGlite serves one
 * session to the whole pool, so statements that overlap can trip over each other. Committed
 * events go out to the matching webhooks at the first hand-over, with nothing failed and retried.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"

import { Database } from "../../../src/persistence/Database.js"
import { OutboxRepo } from "../../../src/persistence/OutboxRepo.js"
import { Webhooks } from "../../../src/services/notifications/webhooks/Webhooks.js"
import { StateChanges } from "../../../src/services/StateChanges.js"
import { Dispatcher } from "../../../src/workers/Dispatcher.js"
import { eventually } from "../../support/Eventually.js"
import { addLogger, minimumLogLevel } from "../../support/Logs.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { embeddedConfig } from "../../support/TestDatabase.js"

/** What was logged at WARN or worse: on this path, anything is a defect. */
const warnings: Array<string> = []
const RecordWarnings = addLogger(Logger.make(({ logLevel, message }) => {
  if (LogLevel.isGreaterThanOrEqualTo(logLevel, "Warn")) warnings.push(String(message))
}))

const Embedded = Layer.mergeAll(Dispatcher, Webhooks.layer, OutboxRepo.layer, StateChanges.layer).pipe(
  Layer.provideMerge(Database),
  Layer.provide(embeddedConfig({ PUBLIC_URL: "https://status.example.test" })),
  // Merged, not only provided: the services the tests call log through the tests' fibers.
  Layer.provideMerge(RecordWarnings),
  Layer.provideMerge(minimumLogLevel("Warn"))
)

const incident = (id: string, componentIds: Array<string>) => ({
  id,
  title: "Errors",
  status: "investigating" as const,
  severity: "major" as const,
  componentIds,
  message: "Investigating"
})

layer(Embedded, { excludeTestServices: true, timeout: 60_000 })("dispatcher on embedded PGlite", (it) => {
  it.effect("delivers committed events to their webhooks at the first hand-over", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const outbox = yield* OutboxRepo
      const changes = yield* StateChanges
      const target = yield* receiver(answerWith(204))
      yield* webhooks.create({ name: "all", url: `${target.url}/all`, type: "generic" })
      yield* webhooks.create({ name: "api", url: `${target.url}/api`, type: "chat_a", componentIds: ["cmp_api"] })
      yield* changes.commit(outbox.append("incident.created", incident("inc_1", []), []))
      yield* changes.commit(outbox.append("incident.created", incident("inc_2", ["cmp_api"]), ["cmp_api"]))

      const received = yield* eventually(Effect.sync(() => target.received.slice()), (list) => list.length >= 3, 15_000)
      expect(received.map((request) => request.path.split("/").at(-1)).sort()).toEqual(["all", "all", "api"])
      expect(warnings).toEqual([])
    }))
})
