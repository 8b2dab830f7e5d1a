/**
 * The rules of `Idempotency-Key` on admin POSTs (docs/api.md, "Retries: Idempotency-Key"): what a
 * key is, how long it holds, and what is kept of an answer.
 */
import { Duration, Schema } from "effect"

import { TaggedError } from "./Named.js"

/** 1–255 printable ASCII characters (space to `~`): a UUID, or any id the client's job already has. */
export const isIdempotencyKey = (value: string) => /^[\x20-\x7e]{1,255}$/.test(value)

/** How long a key answers its first answer again; its row is deleted after (workers/Housekeeping). */
export const idempotencyKeyLifetime = Duration.hours(24)

/**
 * How long a claimed key waits for its first request before a retry may take the key over (the
 * process that claimed it died): longer than any admin request takes. The server gives a request
 * 30 s to arrive whole (docs/operations.md, "Time-outs and limits"), and a handler's work is
 * database writes and at most one webhook call, itself bounded by its delivery time-out.
 */
export const idempotencyLease = Duration.seconds(60)

/** 422: the key was used, within 24 hours, on a request with another path or body. */
export class IdempotencyKeyReused extends TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  { message: Schema.String },
  {
    description: "The Idempotency-Key was used on another request (another path or body) within the last 24 hours",
    httpApiStatus: 422
  }
) {}

/** An answer as kept for replays: what the handler answered, byte for byte. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Absent for an answer without a body (204). */
  readonly contentType: string | undefined
  readonly body: Uint8Array
}

/** The sealed form of a StoredAnswer, before encryption. */
export const StoredAnswerJson = Schema.fromJsonString(Schema.Struct({
  status: Schema.Int,
  headers: Schema.Record(Schema.String, Schema.String),
  contentType: Schema.NullOr(Schema.String),
  body: Schema.String
}))
