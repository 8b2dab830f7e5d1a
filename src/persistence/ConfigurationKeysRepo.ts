/** The keys configuration documents and importers call entities by (migration 0046). */
import { Context, Effect, Layer, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** The advisory lock of applies and imports (another than the scheduler's and the mirror's). */
const applyLockKey = 7_311_402_045

const KeyRow = Schema.Struct({ kind: Schema.String, key: Schema.String, entityId: Schema.String })

export class ConfigurationKeysRepo extends Context.Service<ConfigurationKeysRepo>()("ConfigurationKeysRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const rows = rowsOf(KeyRow)
    return {
      /**
       * Makes the caller's transaction the only apply or import under way until it ends: two at
       * once would each make the entity of a new key, and one of them would lose it.
       */
      lockForApply: () => orUnavailable(sql`select pg_advisory_xact_lock(${applyLockKey})`),
      /** Every key of every kind. */
      all: () => rows.all(sql`select kind, key, entity_id from configuration_keys`),
      /** Names `entityId` `key` within `kind`, replacing whatever either had before. */
      set: (kind: string, key: string, entityId: string) =>
        orUnavailable(Effect.andThen(
          sql`delete from configuration_keys where kind = ${kind} and (key = ${key} or entity_id = ${entityId})`,
          sql`insert into configuration_keys (kind, key, entity_id) values (${kind}, ${key}, ${entityId})`
        )),
      remove: (kind: string, entityId: string) =>
        orUnavailable(sql`delete from configuration_keys where kind = ${kind} and entity_id = ${entityId}`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
