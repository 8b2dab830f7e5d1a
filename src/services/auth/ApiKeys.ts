/**
 * API keys as the specification rules them: `svc_` + 32 random [A-Za-z0-9] characters from
 * the CSPRNG, SHA-256 at rest, the first 12 characters kept as a lookup prefix, the full key
 * shown once, optional expiry, lastUsedAt on every use, and no key may delete itself.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

import { Clock, Context, DateTime, Effect, Layer } from "effect"

import type { ApiKeyId, CreateApiKey, Principal, UserId } from "../../domain/Auth.js"
import { apiKeyPattern, apiKeyPrefixLength, CreatedApiKey } from "../../domain/Auth.js"
import { BadRequest, Conflict, NotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import { ApiKeysRepo } from "../../persistence/ApiKeysRepo.js"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** 32 uniformly random characters of `alphabet`: bytes >= 248 are dropped so `% 62` has no bias. */
export const generateApiKey = (): string => {
  let body = ""
  while (body.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 32) body += alphabet[byte % 62]
    }
  }
  return `svc_${body}`
}

const digest = (key: string) => createHash("sha256").update(key).digest()

export type KeyCheck =
  | { readonly _tag: "Valid"; readonly id: ApiKeyId; readonly createdBy: UserId | null }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Invalid" }

/**
 * How stale a key's lastUsedAt may be: it moves at most once a minute. Moving it on every request
 * was a commit of its own in each, about a fifth of an admin write's time.
 */
export const lastUsedPrecisionMillis = 60_000

const invalid: KeyCheck = { _tag: "Invalid" }
const expired: KeyCheck = { _tag: "Expired" }

export class ApiKeys extends Context.Service<ApiKeys>()("ApiKeys", {
  make: Effect.gen(function*() {
    const repo = yield* ApiKeysRepo
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    return {
      list: Effect.fn("ApiKeys.list")((page: PageRequest) => repo.listPage(page)),

      create: Effect.fn("ApiKeys.create")(function*(input: CreateApiKey, createdBy: UserId | null) {
        const at = yield* now
        const expiresAt = input.expiresAt === undefined ? null : DateTime.toDateUtc(input.expiresAt)
        if (expiresAt !== null && expiresAt.getTime() <= at.getTime()) {
          return yield* new BadRequest({ message: "expiresAt must be in the future" })
        }
        const key = generateApiKey()
        const row = yield* repo.insert({
          name: input.name,
          prefix: key.slice(0, apiKeyPrefixLength),
          keyHash: digest(key),
          createdBy,
          createdAt: at,
          expiresAt
        })
        return new CreatedApiKey({ ...row, key })
      }),

      /**
       * Checks a presented key; a valid one has its lastUsedAt moved to now when it is more than
       * `lastUsedPrecisionMillis` old, so automation's requests do not each commit a write.
       */
      check: Effect.fn("ApiKeys.check")(function*(key: string) {
        if (!apiKeyPattern.test(key)) return invalid
        const presented = digest(key)
        const candidates = yield* repo.findByPrefix(key.slice(0, apiKeyPrefixLength))
        const match = candidates.find((candidate) =>
          candidate.keyHash.length === presented.length && timingSafeEqual(candidate.keyHash, presented)
        )
        if (match === undefined) return invalid
        const at = yield* now
        if (match.expiresAt !== null && match.expiresAt.getTime() <= at.getTime()) return expired
        if (match.lastUsedAt === null || at.getTime() - match.lastUsedAt.getTime() >= lastUsedPrecisionMillis) {
          yield* repo.markUsed(match.id, at)
        }
        return { _tag: "Valid", id: match.id as ApiKeyId, createdBy: match.createdBy } satisfies KeyCheck as KeyCheck
      }),

      remove: Effect.fn("ApiKeys.remove")(function*(id: ApiKeyId, principal: Principal) {
        if (principal.method === "apiKey" && principal.apiKeyId === id) {
          return yield* new Conflict({
            message: "An API key cannot delete itself; delete it with another key or a session"
          })
        }
        if (!(yield* repo.remove(id))) return yield* NotFound.of("API key", id)
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(ApiKeysRepo.layer))
}
