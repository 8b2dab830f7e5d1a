/**
 * The keys of `Idempotency-Key` (docs/api.md, "Retries: Idempotency-Key"), kept in PostgreSQL so
 * that a retry is safe on any instance and after a restart. A request claims its key before its
 * handler runs (`begin`): it runs, replays the stored answer, or is refused. After the handler it
 * stores the answer (`complete`) or gives the key up (`release`), and a retry runs again.
 *
 * Nothing stored is readable without the client's key: the row's id is an HMAC of the principal
 * and the key under a server secret, and the request's fingerprint and the answer are sealed with
 * keys derived (HKDF-SHA256) from the client's key and that secret. A new API key's secret or a
 * new webhook's signing secret, answered once, is therefore never readable at rest.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomUUID,
  timingSafeEqual
} from "node:crypto"

import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"

import { canonicalBody } from "../domain/CanonicalJson.js"
import { Conflict } from "../domain/Errors.js"
import {
  idempotencyKeyLifetime,
  IdempotencyKeyReused,
  idempotencyLease,
  type StoredAnswer,
  StoredAnswerJson
} from "../domain/IdempotencyKey.js"
import { type IdempotencyClaim, IdempotencyKeysRepo } from "../persistence/IdempotencyKeysRepo.js"
import { ServerSecretsRepo } from "../persistence/ServerSecretsRepo.js"

/** A request that carries a key, as the key's row knows it. */
export interface IdempotentRequest {
  /** Whose key it is: an API key or a user (`api-key:<id>`, `user:<id>`); keys never meet across principals. */
  readonly principal: string
  readonly key: string
  readonly method: string
  /** The path and query, as sent. */
  readonly url: string
  readonly body: string
}

/** What a run holds to store its answer, or give the key up. */
export interface IdempotencyTicket {
  readonly id: Uint8Array
  readonly claim: string
  readonly sealKey: Buffer
}

export type IdempotencyStart =
  | { readonly _tag: "Run"; readonly ticket: IdempotencyTicket }
  | { readonly _tag: "Replay"; readonly answer: StoredAnswer }

const reused = new IdempotencyKeyReused({
  message: "This Idempotency-Key was already used on another request (another path or body) in the " +
    "last 24 hours; use a new key for a new request"
})

export const inProgress = new Conflict({
  message: "A request with this Idempotency-Key is in progress; retry shortly"
})

const version = "status-page idempotency-key v1"

/** AES-256-GCM: a random 12-byte nonce, then the ciphertext, then the 16-byte tag; bound to the row's id. */
const seal = (key: Buffer, id: Uint8Array, plaintext: Uint8Array) => {
  const nonce = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, nonce).setAAD(id)
  return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
}

const open = (key: Buffer, id: Uint8Array, sealed: Uint8Array) => {
  const bytes = Buffer.from(sealed)
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12)).setAAD(id)
  decipher.setAuthTag(bytes.subarray(bytes.length - 16))
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()])
}

const encodeAnswer = Schema.encodeSync(StoredAnswerJson)
const decodeAnswer = Schema.decodeUnknownSync(StoredAnswerJson)

export class IdempotencyKeys extends Context.Service<IdempotencyKeys>()("IdempotencyKeys", {
  make: Effect.gen(function*() {
    const repo = yield* IdempotencyKeysRepo
    const secrets = yield* ServerSecretsRepo

    // Read once per process, when first needed: a failed read (database away) is tried again.
    let secret: Buffer | undefined
    const serverSecret = Effect.suspend(() =>
      secret !== undefined ?
        Effect.succeed(secret) :
        Effect.tap(secrets.obtain("idempotency-keys"), (read) =>
          Effect.sync(() => {
            secret = read
          }))
    )

    /** The row's id, the request's fingerprint and the key that seals its answer. */
    const derive = (server: Buffer, request: IdempotentRequest) => {
      // A key is printable ASCII and a principal an id: "\n" cannot occur in either.
      const scope = `${version}\n${request.principal}\n${request.key}`
      const id = createHmac("sha256", server).update(scope).digest()
      const keys = Buffer.from(hkdfSync("sha256", Buffer.from(request.key), server, scope, 64))
      const fingerprint = createHmac("sha256", keys.subarray(32))
        .update(`${request.method}\n${request.url}\n${canonicalBody(request.body)}`)
        .digest()
      return { id, fingerprint, sealKey: keys.subarray(0, 32) }
    }

    return {
      /**
       * Claims the request's key (or takes over a claim whose lease ran out, or a key expired but
       * not deleted yet) and answers `Run`; or replays the answer stored for the same request.
       * Fails with 422 for the key on another request, 409 while its first request runs.
       */
      begin: Effect.fn("IdempotencyKeys.begin")(function*(request: IdempotentRequest) {
        const { fingerprint, id, sealKey } = derive(yield* serverSecret, request)
        const now = new Date(yield* Clock.currentTimeMillis)
        const claim: IdempotencyClaim = {
          id,
          fingerprint,
          claim: randomUUID(),
          now,
          expiresAt: new Date(now.getTime() + Duration.toMillis(idempotencyKeyLifetime))
        }
        const run = { _tag: "Run", ticket: { id, claim: claim.claim, sealKey } } as const
        // A row that vanishes or changes between two statements (released, purged, taken over)
        // is read again; a key that keeps changing that fast is in use: 409.
        for (let attempt = 0; attempt < 3; attempt++) {
          if (yield* repo.insert(claim)) return run
          const found = yield* repo.find(id)
          if (Option.isNone(found)) continue
          const row = found.value
          if (row.expiresAt.getTime() <= now.getTime()) {
            if (yield* repo.takeOver(claim, row.claim)) return run
            continue
          }
          const same = row.fingerprint.length === fingerprint.length && timingSafeEqual(row.fingerprint, fingerprint)
          if (!same) return yield* reused
          if (row.answer !== null) {
            const sealed = row.answer
            const stored = yield* Effect.try({
              try: () => decodeAnswer(open(sealKey, id, sealed).toString("utf8")),
              // Only the key that sealed it matches this id: the row was altered.
              catch: (cause) => new Error("A stored Idempotency-Key answer does not open", { cause })
            }).pipe(Effect.orDie)
            return {
              _tag: "Replay",
              answer: {
                status: stored.status,
                headers: stored.headers,
                contentType: stored.contentType ?? undefined,
                body: Buffer.from(stored.body, "base64")
              }
            } as const
          }
          if (row.claimedAt.getTime() + Duration.toMillis(idempotencyLease) > now.getTime()) return yield* inProgress
          if (yield* repo.takeOver(claim, row.claim)) return run
        }
        return yield* inProgress
      }),

      /** Stores the run's answer, sealed; a run whose claim was taken over stores nothing. */
      complete: Effect.fn("IdempotencyKeys.complete")(function*(ticket: IdempotencyTicket, answer: StoredAnswer) {
        const plaintext = encodeAnswer({
          status: answer.status,
          headers: answer.headers,
          contentType: answer.contentType ?? null,
          body: Buffer.from(answer.body).toString("base64")
        })
        yield* repo.complete(ticket.id, ticket.claim, seal(ticket.sealKey, ticket.id, Buffer.from(plaintext, "utf8")))
      }),

      /** Gives the key up: the run's answer is not kept, and a retry runs again. */
      release: Effect.fn("IdempotencyKeys.release")(function*(ticket: IdempotencyTicket) {
        yield* repo.release(ticket.id, ticket.claim)
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([IdempotencyKeysRepo.layer, ServerSecretsRepo.layer])
  )
}
