/**
 * On the embedded database one PGlite session serves every pooled connection, and a connection
 * in a transaction holds it until the transaction ends. A transaction must therefore never wait
 * for work another fiber does on another connection: that work waits for the session, and
 * neither moves again (every later request answered 503). Reads shared between fibers (the
 * probe registry's offline regions, which ingest asks inside its transaction) are made without
 * such a wait.
 */
import { expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { Database } from "../../src/persistence/Database.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { minimumLogLevel } from "../support/Logs.js"
import { embeddedConfig } from "../support/TestDatabase.js"

const Embedded = ProbeRegistry.layer.pipe(
  Layer.provideMerge(Database),
  Layer.provide(embeddedConfig()),
  Layer.provide(minimumLogLevel("Warn"))
)

layer(Embedded, { excludeTestServices: true, timeout: 60_000 })(
  "embedded database: no transaction waits on another connection",
  (it) => {
    it.effect("a transaction reads the offline regions while another fiber's read of them waits for the session", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const registry = yield* ProbeRegistry
        const inTransaction = yield* Deferred.make<void>()
        const outsideStarted = yield* Deferred.make<void>()
        const transaction = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`select 1` // the session is this transaction's until it ends
          yield* Deferred.succeed(inTransaction, undefined)
          yield* Deferred.await(outsideStarted)
          // The other fiber's read is on its way to the session this transaction holds.
          yield* Effect.sleep(Duration.millis(200))
          return yield* registry.offlineRegions()
        })).pipe(Effect.forkChild)
        yield* Deferred.await(inTransaction)
        const outside = yield* registry.offlineRegions().pipe(
          Effect.forkChild,
          Effect.tap(() => Deferred.succeed(outsideStarted, undefined))
        )
        const inside = yield* Fiber.join(transaction).pipe(Effect.timeout(Duration.seconds(10)))
        expect([...inside]).toEqual([])
        expect([...(yield* Fiber.join(outside))]).toEqual([])
      }))
  }
)
