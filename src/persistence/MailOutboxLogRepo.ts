/**
 * The mail kept without SMTP_URL (`mail_outbox_log`, kept by Mailer), emptied by Housekeeping:
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
       * Keeps a mail (its secrets already replaced), with the hash of the confirmation link's
       * token when it carries one.
       */
      keep: (mail: {
        readonly to: string
        readonly subject: string
        readonly text: string
        readonly html: string
        readonly headers: Readonly<Record<string, string>> | undefined
        readonly confirmationToken: string | undefined
      }) =>
        // The link's hash as the subscriber keeps it, computed as MailDeliveriesRepo compares it.
        orUnavailable(sql`
          insert into mail_outbox_log (to_address, subject, text_body, html_body, headers, verify_token_hash)
          values (${mail.to}, ${mail.subject}, ${mail.text}, ${mail.html},
                  ${JSON.stringify(mail.headers)}::jsonb,
                  encode(sha256(convert_to(${mail.confirmationToken ?? null}::text, 'UTF8')), 'hex'))`).pipe(
          Effect.asVoid
        ),

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
