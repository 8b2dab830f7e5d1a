/**
 * Writes the audit log (docs/authentication.md, "Audit log"). A write records its entry with
 * `record`, inside its own transaction, so the entry exists exactly when the change does; who
 * made it, from where and by which operation comes from the fiber's `CurrentAuditScope` (set by
 * Authentication for an admin request, by a local command or an automation for theirs).
 *
 * `changesBetween` turns a target's state before and after into `{ field: { before, after } }`,
 * with the fields named as secrets shown only as `(secret)`: an entry never holds a password, a
 * key, a webhook's secret or a header's value.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"

import {
  type Actor,
  type AuditFilter,
  CurrentAuditScope,
  type FieldChange,
  secretValue,
  type Target
} from "../../domain/Audit.js"
import type { Principal } from "../../domain/Auth.js"
import { normalizeAddress } from "../../domain/NetworkAddress.js"
import type { PageRequest } from "../../domain/Page.js"
import { AuditLogRepo } from "../../persistence/AuditLogRepo.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"

/** The actor an authenticated principal is in the log: the user by e-mail, or the API key by name. */
export const actorOf = (principal: Principal): Actor =>
  principal.method === "apiKey"
    ? { type: "apiKey", id: principal.apiKeyId, name: principal.name }
    : { type: "user", id: principal.userId, name: principal.name }

/**
 * Fields whose values are never written, whatever the target and however deep (compared
 * case-insensitively): these names, and names ending in one of `secretEndings`
 * (`unsubscribeToken`, `webhookSecret`).
 */
const alwaysSecret = new Set(["password", "passwordhash", "key", "keyhash", "secret", "token", "tokenhash", "headers"])
const secretEndings = ["password", "passwordhash", "keyhash", "secret", "token", "tokenhash"]

const isSecretName = (name: string, secrets: ReadonlySet<string>) => {
  const lower = name.toLowerCase()
  return secrets.has(lower) || alwaysSecret.has(lower) || secretEndings.some((ending) => lower.endsWith(ending))
}

/** Bookkeeping every entry has already: when it was made is the entry's `at`. */
const unlisted = new Set(["createdAt", "updatedAt"])

/**
 * A value secret by its type (Redacted, bytes such as a hash): compared by its content, so that a
 * change shows, and never shown (`hidden`).
 */
class Concealed {
  constructor(readonly content: string) {}
  toJSON() {
    return { concealed: this.content }
  }
}

/** A value as JSON shows it: timestamps as ISO 8601, Options as their value or null, secrets as they are. */
const plain = (value: unknown): unknown => {
  if (value === undefined || value === null) return null
  if (DateTime.isDateTime(value)) return DateTime.formatIso(value)
  if (value instanceof Date) return value.toISOString()
  if (Redacted.isRedacted(value)) return new Concealed(JSON.stringify(plain(Redacted.value(value))))
  if (Option.isOption(value)) return Option.isSome(value) ? plain(value.value) : null
  if (value instanceof Uint8Array) return new Concealed(Buffer.from(value).toString("base64"))
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]))
  }
  return value
}

/** A plain value with every secret field inside it (at any depth) shown as `(secret)`. */
const hidden = (value: unknown, secrets: ReadonlySet<string>): unknown => {
  if (value instanceof Concealed) return secretValue
  if (Array.isArray(value)) return value.map((item) => hidden(item, secrets))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map((
        [key, field]
      ) => [key, field === null ? null : isSecretName(key, secrets) ? secretValue : hidden(field, secrets)])
    )
  }
  return value
}

/**
 * The fields that differ between `before` and `after` (either absent: a creation or deletion,
 * every field), compared as JSON; `createdAt` and `updatedAt` are left out. A secret field
 * (`alwaysSecret`, `secretEndings`, or one of `secrets`) that differs is shown as `(secret)` on
 * both sides, and so is one nested in a field that differs. Values are compared before they are
 * hidden, so a changed secret shows as a change.
 */
export const changesBetween = (
  before: object | undefined,
  after: object | undefined,
  secrets: ReadonlyArray<string> = []
): Record<string, FieldChange> => {
  const was = (plain(before) ?? {}) as Record<string, unknown>
  const is = (plain(after) ?? {}) as Record<string, unknown>
  const secret = new Set(secrets.map((name) => name.toLowerCase()))
  const changes: Record<string, FieldChange> = {}
  for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (unlisted.has(field)) continue
    const from = was[field] ?? null
    const to = is[field] ?? null
    if (JSON.stringify(from) === JSON.stringify(to)) continue
    changes[field] = isSecretName(field, secret)
      ? { before: from === null ? null : secretValue, after: to === null ? null : secretValue }
      : { before: hidden(from, secret), after: hidden(to, secret) }
  }
  return changes
}

/** An address as the log keeps it: IPv4-mapped IPv6 as plain IPv4, so one client is one address. */
const normalized = (address: string | null) =>
  address === null ? null : Option.getOrElse(normalizeAddress(address), () => address)

export class AuditTrail extends Context.Service<AuditTrail>()("AuditTrail", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const repo = yield* AuditLogRepo
    /** Key and address pairs already seen by this process: the table is asked once per pair. */
    const seen = new Set<string>()

    return {
      /**
       * Appends the entry of the change being made: call it inside the change's transaction.
       * `operation` defaults to the scope's (the admin request's operationId); `changes` to none.
       */
      record: Effect.fn("AuditTrail.record")(function*(entry: {
        readonly target: Target
        readonly changes?: Record<string, FieldChange>
        readonly operation?: string
      }) {
        const scope = yield* CurrentAuditScope
        yield* repo.insert({ ...scope, clientAddress: normalized(scope.clientAddress) }, {
          operation: entry.operation ?? scope.operation ?? "unknown",
          target: entry.target,
          changes: entry.changes ?? {}
        })
      }),

      /**
       * Runs `change` in a transaction of its own (a savepoint inside one): for a write outside
       * StateChanges to record its entry with it.
       */
      transaction: <A, E, R>(change: Effect.Effect<A, E, R>) => orUnavailable(sql.withTransaction(change)),

      /**
       * An API key's first use from an address is an entry of its own (`apiKeys.usedFromNewAddress`),
       * written with the address it remembers, in one transaction: never one without the other.
       */
      keyUsedFrom: Effect.fn("AuditTrail.keyUsedFrom")(function*(
        principal: Extract<Principal, { method: "apiKey" }>,
        from: string
      ) {
        const address = normalized(from)!
        const pair = `${principal.apiKeyId} ${address}`
        if (seen.has(pair)) return
        yield* orUnavailable(sql.withTransaction(Effect.gen(function*() {
          if (!(yield* repo.firstUseFrom(principal.apiKeyId, address))) return
          yield* repo.insert({ actor: actorOf(principal), clientAddress: address, operation: null }, {
            operation: "apiKeys.usedFromNewAddress",
            target: { type: "apiKey", id: principal.apiKeyId, name: principal.name },
            changes: {}
          })
        })))
        // Bounded: a process forgets what it saw rather than grow without end.
        if (seen.size >= 10_000) seen.clear()
        seen.add(pair)
      }),

      list: Effect.fn("AuditTrail.list")((filter: AuditFilter, page: PageRequest) => repo.findPage(filter, page)),

      /** Housekeeping: deletes up to `limit` entries older than `before`; how many it deleted. */
      removeOlderThan: (before: Date, limit: number) => repo.removeOlderThan(before, limit)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(AuditLogRepo.layer))
}
