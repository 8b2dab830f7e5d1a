import { Context, Effect, Layer, Schema } from "effect"

import { UserId } from "../domain/Auth.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class SessionRow extends Schema.Class<SessionRow>("SessionRow")({
  id: Schema.String,
  userId: UserId,
  lastSeenAt: Schema.Date,
  expiresAt: Schema.Date
}) {}

export class SessionsRepo extends Context.Service<SessionsRepo>()("SessionsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const sessions = rowsOf(SessionRow)
    return {
      insert: (session: { tokenHash: Buffer; userId: UserId; now: Date; expiresAt: Date }) =>
        sessions.one(sql`
          insert into sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
          values (${session.tokenHash}, ${session.userId}, ${session.now}, ${session.now}, ${session.expiresAt})
          returning id, user_id, last_seen_at, expires_at`),
      findByTokenHash: (tokenHash: Buffer) =>
        sessions.first(sql`select id, user_id, last_seen_at, expires_at from sessions where token_hash = ${tokenHash}`),
      touch: (id: string, now: Date) => orUnavailable(sql`update sessions set last_seen_at = ${now} where id = ${id}`),
      remove: (id: string) => orUnavailable(sql`delete from sessions where id = ${id}`),
      removeByTokenHash: (tokenHash: Buffer) =>
        orUnavailable(sql`delete from sessions where token_hash = ${tokenHash}`),
      removeExpired: (idleSince: Date, now: Date) =>
        orUnavailable(sql`delete from sessions where expires_at <= ${now} or last_seen_at <= ${idleSince}`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
