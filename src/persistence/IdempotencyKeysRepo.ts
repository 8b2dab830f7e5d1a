import { Context, Effect, Layer, Schema } from "effect"

import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** A key's row (migration 0038): opaque bytes, made and read by services/IdempotencyKeys. */
export class IdempotencyKeyRow extends Schema.Class<IdempotencyKeyRow>("IdempotencyKeyRow")({
  fingerprint: Schema.Uint8Array,
  claim: Schema.String,
  claimedAt: Schema.Date,
  answer: Schema.NullOr(Schema.Uint8Array),
  expiresAt: Schema.Date
}) {}

/** What a request claims its key with. */
export interface IdempotencyClaim {
  readonly id: Uint8Array
  readonly fingerprint: Uint8Array
  /** A token of this run: completing or releasing the row needs it, so a run taken over cannot. */
  readonly claim: string
  readonly now: Date
  readonly expiresAt: Date
}

/**
 * The Idempotency-Key rows of admin POSTs. Every change is one statement that says which claim
 * it expects, so two instances racing for a key settle in PostgreSQL: one inserts or takes the
 * row over, the other sees it taken.
 */
export class IdempotencyKeysRepo extends Context.Service<IdempotencyKeysRepo>()("IdempotencyKeysRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const rows = rowsOf(IdempotencyKeyRow)
    const ids = rowsOf(Schema.Struct({ id: Schema.Uint8Array }))
    const bytes = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength)

    return {
      /** Inserts the claim unless the key has a row already; whether this request now holds it. */
      insert: (claim: IdempotencyClaim) =>
        Effect.map(
          ids.all(sql`
            insert into idempotency_keys (id, fingerprint, claim, claimed_at, expires_at)
            values (${bytes(claim.id)}, ${bytes(claim.fingerprint)}, ${claim.claim}, ${claim.now}, ${claim.expiresAt})
            on conflict (id) do nothing
            returning id`),
          (inserted) => inserted.length > 0
        ),

      find: (id: Uint8Array) =>
        rows.first(sql`
          select fingerprint, claim, claimed_at, answer, expires_at from idempotency_keys where id = ${bytes(id)}`),

      /**
       * Takes the row over from the claim `previous` (a run whose lease ran out, or a key that
       * expired but is not deleted yet) as a fresh claim without an answer; false when another
       * request changed it first.
       */
      takeOver: (claim: IdempotencyClaim, previous: string) =>
        Effect.map(
          ids.all(sql`
            update idempotency_keys
            set fingerprint = ${bytes(claim.fingerprint)}, claim = ${claim.claim}, claimed_at = ${claim.now},
                answer = null, expires_at = ${claim.expiresAt}
            where id = ${bytes(claim.id)} and claim = ${previous}
            returning id`),
          (taken) => taken.length > 0
        ),

      /** Stores the answer of the run `claim`; false when its claim was taken over meanwhile. */
      complete: (id: Uint8Array, claim: string, answer: Uint8Array) =>
        Effect.map(
          ids.all(sql`
            update idempotency_keys set answer = ${bytes(answer)}
            where id = ${bytes(id)} and claim = ${claim} and answer is null
            returning id`),
          (completed) => completed.length > 0
        ),

      /** Gives the key up after a run whose answer is not kept, so a retry runs again. */
      release: (id: Uint8Array, claim: string) =>
        orUnavailable(sql`
          delete from idempotency_keys where id = ${bytes(id)} and claim = ${claim} and answer is null`).pipe(
          Effect.asVoid
        ),

      /** Deletes up to `limit` rows that expired before `now`; returns how many. */
      removeExpiredBefore: (now: Date, limit: number) =>
        orUnavailable(sql`
          delete from idempotency_keys
          where id in (select id from idempotency_keys where expires_at < ${now} limit ${limit} for update skip locked)
          and expires_at < ${now}
          returning id`).pipe(Effect.map((deleted) => deleted.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
