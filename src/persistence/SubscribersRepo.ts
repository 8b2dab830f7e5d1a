import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

import type { SubscriberId } from "../domain/Subscriber.js"
import { Recipient, Subscriber } from "../domain/Subscriber.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { MailDelivery } from "./MailDeliveriesRepo.js"
import { rowsOf } from "./Rows.js"

const subscriberColumns = "id, email, verified_at is not null as verified, created_at, verified_at"

export class SubscribersRepo extends Effect.Service<SubscribersRepo>()("SubscribersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscribers = rowsOf(Subscriber)
    const recipients = rowsOf(Recipient)
    const verifiedEmail = rowsOf(Schema.Struct({ email: Schema.String }))
    const queuedConfirmation = rowsOf(
      Schema.Struct({ id: Schema.String, attempts: Schema.Int, email: Schema.String, unsubscribeToken: Schema.String })
    )

    return {
      findAll: () =>
        subscribers.all(sql`select ${sql.literal(subscriberColumns)} from subscribers order by created_at, id`),

      /**
       * Records a subscription request. A new or still unverified address gets the new token (the
       * previous link stops working) and, in the same statement, its confirmation mail: queued in
       * `mail_deliveries` in place of the previous one, claimed until `claimedUntil` for the
       * caller to send, and returned. A verified address is left alone and gets none.
       */
      request: (request: {
        readonly email: string
        readonly token: string
        readonly tokenHash: string
        readonly expiresAt: Date
        readonly unsubscribeToken: string
        readonly claimedUntil: Date
      }) =>
        queuedConfirmation.first(sql`
          with subscriber as (
            insert into subscribers (email, verify_token_hash, verify_expires_at, unsubscribe_token)
            values (${request.email}, ${request.tokenHash}, ${request.expiresAt}, ${request.unsubscribeToken})
            on conflict (email) do update
              set verify_token_hash = excluded.verify_token_hash,
                  verify_expires_at = excluded.verify_expires_at,
                  updated_at = now()
              where subscribers.verified_at is null
            returning id, email, unsubscribe_token),
          replaced as (
            delete from mail_deliveries m using subscriber
            where m.subscriber_id = subscriber.id and m.kind = 'confirmation'),
          queued as (
            insert into mail_deliveries (kind, subscriber_id, verify_token, next_attempt_at)
            select 'confirmation', id, ${request.token}, ${request.claimedUntil} from subscriber
            returning id, attempts)
          select queued.id, queued.attempts, subscriber.email, subscriber.unsubscribe_token
          from queued cross join subscriber`).pipe(
          Effect.map(Option.map((queued) =>
            new MailDelivery({
              ...queued,
              kind: "confirmation",
              eventId: null,
              event: null,
              verifyToken: request.token
            })
          ))
        ),

      /** Whether a confirmation link is pending: unused, unexpired, not replaced. */
      isPending: (tokenHash: string, now: Date) =>
        orUnavailable(sql`
          select 1 from subscribers where verify_token_hash = ${tokenHash} and verify_expires_at > ${now}`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      /**
       * Verifies the subscriber holding an unexpired token; the token is used up, and the
       * confirmation mail's row, which may hold it in clear, goes with it.
       */
      verify: (tokenHash: string, now: Date) =>
        verifiedEmail.first(sql`
          with verified as (
            update subscribers
            set verified_at = ${now}, verify_token_hash = null, verify_expires_at = null, updated_at = now()
            where verify_token_hash = ${tokenHash} and verify_expires_at > ${now}
            returning id, email),
          confirmations as (
            delete from mail_deliveries m using verified
            where m.subscriber_id = verified.id and m.kind = 'confirmation')
          select email from verified`),

      /** True when the pair matched and the subscriber is gone. */
      unsubscribe: (email: string, unsubscribeToken: string) =>
        orUnavailable(sql`
          delete from subscribers where email = ${email} and unsubscribe_token = ${unsubscribeToken} returning id`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      remove: (id: SubscriberId) =>
        orUnavailable(sql`delete from subscribers where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /** Deletes up to `limit` unverified subscribers whose link expired before `now`; returns how many. */
      removeUnverifiedExpired: (now: Date, limit: number) =>
        orUnavailable(sql`
          delete from subscribers
          where id in (
            select id from subscribers where verified_at is null and verify_expires_at < ${now}
            limit ${limit} for update skip locked)
          and verified_at is null and verify_expires_at < ${now}
          returning id`).pipe(Effect.map((rows) => rows.length)),

      /** Everyone a notification mail goes to. */
      findVerifiedRecipients: () =>
        recipients.all(sql`
          select id, email, unsubscribe_token from subscribers where verified_at is not null order by created_at, id`)
    } as const
  })
}) {}
