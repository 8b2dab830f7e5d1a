import { randomBytes } from "node:crypto"

import { Context, Effect, Layer, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

class SecretRow extends Schema.Class<SecretRow>("SecretRow")({ value: Schema.Uint8Array }) {}

/** Random keys the service makes once and every instance shares (migration 0036). */
export class ServerSecretsRepo extends Context.Service<ServerSecretsRepo>()("ServerSecretsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const secrets = rowsOf(SecretRow)
    return {
      /**
       * The key named `name`, made of 32 random bytes by whichever instance asks first. Two
       * statements: the read after the insert sees a key another instance committed meanwhile.
       */
      obtain: (name: string) =>
        Effect.gen(function*() {
          yield* orUnavailable(sql`
            insert into server_secrets (name, value) values (${name}, ${randomBytes(32)})
            on conflict (name) do nothing`)
          const row = yield* secrets.one(sql`select value from server_secrets where name = ${name}`)
          return Buffer.from(row.value)
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
