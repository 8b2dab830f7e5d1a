import { Context, Effect, Layer, Schema } from "effect"

import { UserId } from "../domain/Auth.js"
import { Role } from "../domain/Role.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class SessionRow extends Schema.Class<SessionRow>("SessionRow")({
  id: Schema.String,
  userId: UserId,
  lastSeenAt: Schema.Date,
  expiresAt: Schema.Date
}) {}

/** A live session with what authentication needs of its user: their role and e-mail, and whether they are enabled. */
export class SessionCredential extends Schema.Class<SessionCredential>("SessionCredential")({
  ...SessionRow.fields,
  role: Role,
  email: Schema.String,
  disabled: Schema.Boolean
}) {}

/** A session as its user sees it in their list. */
export class OwnSessionRow extends Schema.Class<OwnSessionRow>("OwnSessionRow")({
  id: Schema.String,
  createdAt: Schema.Date,
  lastSeenAt: Schema.Date,
  expiresAt: Schema.Date,
  clientAddress: Schema.NullOr(Schema.String)
}) {}

export class SessionsRepo extends Context.Service<SessionsRepo>()("SessionsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const sessions = rowsOf(SessionRow)
    const credentials = rowsOf(SessionCredential)
    const own = rowsOf(OwnSessionRow)
    return {
      insert: (
        session: { tokenHash: Buffer; userId: UserId; now: Date; expiresAt: Date; clientAddress: string | null }
      ) =>
        sessions.one(sql`
          insert into sessions (token_hash, user_id, created_at, last_seen_at, expires_at, client_address)
          values (${session.tokenHash}, ${session.userId}, ${session.now}, ${session.now}, ${session.expiresAt},
            ${session.clientAddress})
          returning id, user_id, last_seen_at, expires_at`),
      findByTokenHash: (tokenHash: Buffer) =>
        credentials.first(sql`
          select s.id, s.user_id, s.last_seen_at, s.expires_at, u.role, u.email, u.disabled_at is not null as disabled
          from sessions s join users u on u.id = s.user_id
          where s.token_hash = ${tokenHash}`),
      touch: (id: string, now: Date) => orUnavailable(sql`update sessions set last_seen_at = ${now} where id = ${id}`),
      remove: (id: string) => orUnavailable(sql`delete from sessions where id = ${id}`),
      removeByTokenHash: (tokenHash: Buffer) =>
        orUnavailable(sql`delete from sessions where token_hash = ${tokenHash}`),
      /** The user's sessions alive at `now` (neither past their end nor idle since `idleSince`), newest first. */
      listLive: (userId: UserId, now: Date, idleSince: Date) =>
        own.all(sql`
          select id, created_at, last_seen_at, expires_at, client_address from sessions
          where user_id = ${userId} and expires_at > ${now} and last_seen_at > ${idleSince}
          order by created_at desc, id desc`),
      /** Deletes the session `id` if it is the user's; whether it was. */
      removeOfUser: (userId: UserId, id: string) =>
        orUnavailable(sql`delete from sessions where id = ${id} and user_id = ${userId} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),
      /** Deletes every session of the user but `except` (null: all of them). */
      removeAllOfUser: (userId: UserId, except: string | null) =>
        orUnavailable(
          except === null
            ? sql`delete from sessions where user_id = ${userId}`
            : sql`delete from sessions where user_id = ${userId} and id <> ${except}`
        ).pipe(Effect.asVoid),
      removeExpired: (idleSince: Date, now: Date) =>
        orUnavailable(sql`delete from sessions where expires_at <= ${now} or last_seen_at <= ${idleSince}`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
