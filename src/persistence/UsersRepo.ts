import { Context, Effect, Layer, Schema } from "effect"

import { UserId } from "../domain/Auth.js"
import type { PageRequest } from "../domain/Page.js"
import { Role } from "../domain/Role.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class UserRow extends Schema.Class<UserRow>("UserRow")({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  passwordHash: Schema.String,
  role: Role,
  /** When the user was disabled; null while they are enabled. */
  disabledAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date
}) {}

/** E-mail addresses are compared case-insensitively: they are stored lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

/** The team's members, oldest first. */
const usersInOrder: Keyset = {
  list: "users",
  keys: [{ sql: "created_at", type: "timestamptz" }, { sql: "id", type: "text" }]
}

const columns = "id, email, name, password_hash, role, disabled_at, created_at"

export class UsersRepo extends Context.Service<UsersRepo>()("UsersRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const users = rowsOf(UserRow)
    return {
      findByEmail: (email: string) =>
        users.first(sql`select ${sql.literal(columns)} from users where email = ${normalizeEmail(email)}`),
      findById: (id: UserId) => users.first(sql`select ${sql.literal(columns)} from users where id = ${id}`),

      listPage: (page: PageRequest) =>
        readPage(
          sql,
          usersInOrder,
          page,
          (p) => sql`select ${sql.literal(columns)}, ${p.pageKey} from users where ${p.after} ${p.orderBy} ${p.limit}`,
          users.all
        ),

      /**
       * Locks the enabled owners (by id, so concurrent writers take them in one order) for the
       * caller's transaction and returns their ids: a change that would leave none is decided on
       * rows no concurrent change can move meanwhile.
       */
      lockEnabledOwners: () =>
        orUnavailable(sql<{ id: string }>`
          select id from users where role = 'owner' and disabled_at is null order by id for update`).pipe(
          Effect.map((rows) => rows.map((row) => row.id))
        ),

      /** The user, locked for the caller's transaction. */
      lockById: (id: UserId) => users.first(sql`select ${sql.literal(columns)} from users where id = ${id} for update`),
      lockByEmail: (email: string) =>
        users.first(sql`select ${sql.literal(columns)} from users where email = ${normalizeEmail(email)} for update`),

      /** Sets the role and when the user was disabled (null: enabled). */
      update: (id: UserId, fields: { readonly role: Role; readonly disabledAt: Date | null }) =>
        users.one(sql`
          update users set role = ${fields.role}, disabled_at = ${fields.disabledAt}, updated_at = now()
          where id = ${id} returning ${sql.literal(columns)}`),

      /** Creates a user; none when the e-mail has one already. */
      insert: (user: { readonly email: string; readonly name: string; readonly passwordHash: string; role: Role }) =>
        users.first(sql`
          insert into users (email, name, password_hash, role)
          values (${normalizeEmail(user.email)}, ${user.name}, ${user.passwordHash}, ${user.role})
          on conflict (email) do nothing
          returning ${sql.literal(columns)}`),

      /**
       * Deletes the user with their API keys: the keys' foreign key is `on delete set null`, which
       * would leave working keys without an owner. Their sessions go by cascade.
       */
      remove: (id: UserId) =>
        orUnavailable(Effect.gen(function*() {
          yield* sql`delete from api_keys where created_by = ${id}`
          const deleted = yield* sql`delete from users where id = ${id} returning id`
          return deleted.length > 0
        })),

      /** Creates the user only when no user exists yet; returns whether it did. */
      insertFirst: (user: { email: string; name: string; passwordHash: string }) =>
        orUnavailable(sql`
          insert into users (email, name, password_hash)
          select ${normalizeEmail(user.email)}, ${user.name}, ${user.passwordHash}
          where not exists (select 1 from users)
          on conflict (email) do nothing
          returning id`).pipe(Effect.map((rows) => rows.length > 0)),

      /**
       * Replaces the password hash `current` of the user with `next`; false when the hash is no
       * longer `current` (changed meanwhile) or the user is gone.
       */
      replacePassword: (id: UserId, current: string, next: string) =>
        orUnavailable(sql`
          update users set password_hash = ${next}, updated_at = now()
          where id = ${id} and password_hash = ${current} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

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
