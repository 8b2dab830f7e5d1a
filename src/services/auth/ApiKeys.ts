/**
 * API keys as the specification rules them: `svc_` + 32 random [A-Za-z0-9] characters from
 * the CSPRNG, SHA-256 at rest, the first 12 characters kept as a lookup prefix, the full key
 * shown once, optional expiry, lastUsedAt on every use, and no key may delete itself.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

import { Clock, Context, DateTime, Effect, Layer, Option } from "effect"

import type { ApiKeyId, CreateApiKey, Principal, UserId } from "../../domain/Auth.js"
import { apiKeyPattern, apiKeyPrefixLength, CreatedApiKey } from "../../domain/Auth.js"
import { BadRequest, Conflict, Forbidden, NotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import { atLeast, lowerOf, type Role } from "../../domain/Role.js"
import type { StatusPageId } from "../../domain/StatusPage.js"
import { ApiKeysRepo } from "../../persistence/ApiKeysRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"

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
  | {
    readonly _tag: "Valid"
    readonly id: ApiKeyId
    readonly name: string
    readonly createdBy: UserId | null
    /** The lower of the key's role and its creator's now. */
    readonly role: Role
    readonly pageIds: ReadonlyArray<StatusPageId> | null
  }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Invalid" }

/**
 * How stale a key's lastUsedAt may be: it moves at most once a minute. Moving it on every request
 * was a commit of its own in each, about a fifth of an admin write's time.
 */
export const lastUsedPrecisionMillis = 60_000

const invalid: KeyCheck = { _tag: "Invalid" }
const expired: KeyCheck = { _tag: "Expired" }

/** Whether a key limited to `pages` (null: every page) stays within `limit` (null: no limit). */
const within = (pages: ReadonlyArray<string> | null, limit: ReadonlyArray<string> | null) =>
  limit === null || (pages !== null && pages.every((page) => limit.includes(page)))

export class ApiKeys extends Context.Service<ApiKeys>()("ApiKeys", {
  make: Effect.gen(function*() {
    const repo = yield* ApiKeysRepo
    const audit = yield* AuditTrail
    const transaction = audit.transaction
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    return {
      list: Effect.fn("ApiKeys.list")((page: PageRequest) => repo.listPage(page)),

      /**
       * Makes a key for `creator` (null: the CLI's, which names its role): its role is the one
       * asked for, at most the creator's, and the creator's when none is asked for.
       */
      create: Effect.fn("ApiKeys.create")(function*(
        input: CreateApiKey,
        creator: {
          readonly userId: UserId | null
          readonly role: Role
          /** A creator limited to some pages (an API key) makes keys limited to some of them. */
          readonly pageIds?: ReadonlyArray<StatusPageId> | null | undefined
        }
      ) {
        const at = yield* now
        const expiresAt = input.expiresAt === undefined ? null : DateTime.toDateUtc(input.expiresAt)
        if (expiresAt !== null && expiresAt.getTime() <= at.getTime()) {
          return yield* new BadRequest({ message: "expiresAt must be in the future" })
        }
        const role = input.role ?? creator.role
        if (!atLeast(creator.role, role)) {
          return yield* BadRequest.fromIssues([{
            path: ["role"],
            message: `must be at most your own role, ${creator.role}`
          }])
        }
        const pageIds = input.pageIds === undefined ? null : [...new Set(input.pageIds)]
        if (!within(pageIds, creator.pageIds ?? null)) {
          return yield* new Forbidden({
            message: "A key limited to some status pages makes keys limited to some of those pages (pageIds)"
          })
        }
        if (pageIds !== null) {
          const unknown = yield* repo.unknownPages(pageIds)
          if (unknown.length > 0) {
            return yield* BadRequest.fromIssues(
              input.pageIds!.flatMap((id, i) =>
                unknown.includes(id) ? [{ path: ["pageIds", i], message: "is not a status page" }] : []
              )
            )
          }
        }
        const key = generateApiKey()
        // The entry lists the key as stored, without it or its hash.
        const row = yield* transaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            name: input.name,
            prefix: key.slice(0, apiKeyPrefixLength),
            keyHash: digest(key),
            role,
            pageIds,
            createdBy: creator.userId,
            createdAt: at,
            expiresAt
          })
          yield* audit.record({
            target: { type: "apiKey", id: row.id, name: row.name },
            changes: changesBetween(undefined, row, ["prefix"])
          })
          return row
        }))
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
        // A key of a disabled member stops working with them (and works again once they are enabled).
        if (match === undefined || match.creatorDisabled === true) return invalid
        const at = yield* now
        if (match.expiresAt !== null && match.expiresAt.getTime() <= at.getTime()) return expired
        if (match.lastUsedAt === null || at.getTime() - match.lastUsedAt.getTime() >= lastUsedPrecisionMillis) {
          yield* repo.markUsed(match.id, at)
        }
        return {
          _tag: "Valid",
          id: match.id as ApiKeyId,
          name: match.name,
          createdBy: match.createdBy,
          role: match.creatorRole === null ? match.role : lowerOf(match.role, match.creatorRole),
          pageIds: match.pageIds
        } satisfies KeyCheck as KeyCheck
      }),

      remove: Effect.fn("ApiKeys.remove")(function*(id: ApiKeyId, principal: Principal) {
        if (principal.method === "apiKey" && principal.apiKeyId === id) {
          return yield* new Conflict({
            message: "An API key cannot delete itself; delete it with another key or a session"
          })
        }
        yield* transaction(Effect.gen(function*() {
          const key = yield* repo.findById(id)
          if (Option.isNone(key)) return yield* NotFound.of("API key", id)
          if (!atLeast(principal.role, key.value.role)) {
            return yield* new Forbidden({
              message: `Deleting a key of role ${key.value.role} needs that role or higher`
            })
          }
          if (!within(key.value.pageIds, principal.method === "apiKey" ? principal.pageIds : null)) {
            return yield* new Forbidden({ message: "A key limited to some status pages deletes only keys within them" })
          }
          if (!(yield* repo.remove(id))) return yield* NotFound.of("API key", id)
          yield* audit.record({
            target: { type: "apiKey", id: key.value.id, name: key.value.name },
            changes: changesBetween(key.value, undefined, ["prefix"])
          })
        }))
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([ApiKeysRepo.layer, AuditTrail.layer]))
}
