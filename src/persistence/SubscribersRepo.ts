import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

import type { SubscriberId } from "../domain/Subscriber.js"
import { Recipient, Subscriber } from "../domain/Subscriber.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { rowsOf } from "./Rows.js"

const subscriberColumns = "id, email, verified_at is not null as verified, created_at, verified_at"

export class SubscribersRepo extends Effect.Service<SubscribersRepo>()("SubscribersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscribers = rowsOf(Subscriber)
    const recipients = rowsOf(Recipient)
    const verifiedEmail = rowsOf(Schema.Struct({ email: Schema.String }))

    return {
      findAll: () =>
        subscribers.all(sql`select ${sql.literal(subscriberColumns)} from subscribers order by created_at, id`),

      /**
       * Records a subscription request. A new or still unverified address gets the new token (the
       * previous link stops working) and `true`: a confirmation mail is due. A verified address
       * is left alone and gets `false`.
       */
      request: (email: string, tokenHash: string, expiresAt: Date, unsubscribeToken: string) =>
        orUnavailable(sql`
          insert into subscribers (email, verify_token_hash, verify_expires_at, unsubscribe_token)
          values (${email}, ${tokenHash}, ${expiresAt}, ${unsubscribeToken})
          on conflict (email) do update
            set verify_token_hash = excluded.verify_token_hash,
                verify_expires_at = excluded.verify_expires_at,
                updated_at = now()
            where subscribers.verified_at is null
          returning id`).pipe(Effect.map((rows) => rows.length > 0)),

      /** Verifies the subscriber holding an unexpired token; the token is used up. */
      verify: (tokenHash: string, now: Date) =>
        verifiedEmail.first(sql`
          update subscribers
          set verified_at = ${now}, verify_token_hash = null, verify_expires_at = null, updated_at = now()
          where verify_token_hash = ${tokenHash} and verify_expires_at > ${now}
          returning email`),

      /** True when the pair matched and the subscriber is gone. */
      unsubscribe: (email: string, unsubscribeToken: string) =>
        orUnavailable(sql`
          delete from subscribers where email = ${email} and unsubscribe_token = ${unsubscribeToken} returning id`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      remove: (id: SubscriberId) =>
        orUnavailable(sql`delete from subscribers where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /** Everyone a notification mail goes to. */
      findVerifiedRecipients: () =>
        recipients.all(sql`
          select id, email, unsubscribe_token from subscribers where verified_at is not null order by created_at, id`)
    } as const
  })
}) {}
