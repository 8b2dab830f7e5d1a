/** Whether the database answers: the query behind the readiness probe (GET /health/ready, HealthHttp). */
import { Context, Effect, Layer } from "effect"

import { RetryingSqlClient } from "./RetryingSqlClient.js"

export class DatabaseHealth extends Context.Service<DatabaseHealth>()("DatabaseHealth", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    return {
      /** The cheapest query a server answers; it fails as the query does (the caller bounds its wait). */
      ping: Effect.asVoid(sql`select 1`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
