import { Context, Effect, Layer, Schema } from "effect"

import { UserId } from "../domain/Auth.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class UserRow extends Schema.Class<UserRow>("UserRow")({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  passwordHash: Schema.String
}) {}

/** E-mail addresses are compared case-insensitively: they are stored lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export class UsersRepo extends Context.Service<UsersRepo>()("UsersRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const users = rowsOf(UserRow)
    return {
      findByEmail: (email: string) => users.first(sql`select * from users where email = ${normalizeEmail(email)}`),
      findById: (id: UserId) => users.first(sql`select * from users where id = ${id}`),
      /** Creates the user only when no user exists yet; returns whether it did. */
      insertFirst: (user: { email: string; name: string; passwordHash: string }) =>
        orUnavailable(sql`
          insert into users (email, name, password_hash)
          select ${normalizeEmail(user.email)}, ${user.name}, ${user.passwordHash}
          where not exists (select 1 from users)
          on conflict (email) do nothing
          returning id`).pipe(Effect.map((rows) => rows.length > 0)),
      /** Sets the password and ends the user's sessions; false when there is no such user. */
      setPassword: (email: string, passwordHash: string) =>
        orUnavailable(sql.withTransaction(Effect.gen(function*() {
          const updated = yield* sql<{ id: string }>`
            update users set password_hash = ${passwordHash}, updated_at = now()
            where email = ${normalizeEmail(email)} returning id`
          if (updated.length === 0) return false
          yield* sql`delete from sessions where user_id = ${updated[0]!.id}`
          return true
        })))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
