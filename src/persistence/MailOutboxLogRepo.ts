/**
 * The mail kept without SMTP_URL (`mail_outbox_log`, written by Mailer), emptied by Housekeeping:
 * anonymous subscription requests write to it, so it may not grow without bound, nor keep the
 * addresses of people who never confirmed.
 */
import { Context, Effect, Layer } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

export class MailOutboxLogRepo extends Context.Service<MailOutboxLogRepo>()("MailOutboxLogRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient

    return {
      /**
       * Deletes up to `limit` kept mails: those written before `keptSince`, and confirmations whose
       * link no longer confirms at `now` (used, replaced by a newer request, or expired); returns
       * how many.
       */
      removeStale: (now: Date, keptSince: Date, limit: number) =>
        orUnavailable(sql`
          delete from mail_outbox_log
          where id in (
            select m.id from mail_outbox_log m
            where m.created_at < ${keptSince}
               or (m.verify_token_hash is not null and not exists (
                     select from subscribers s
                     where s.verify_token_hash = m.verify_token_hash and s.verify_expires_at > ${now}))
            limit ${limit} for update skip locked)
          returning id`).pipe(Effect.map((rows) => rows.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
