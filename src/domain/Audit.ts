/**
 * The audit log (docs/authentication.md, "Audit log"): one entry per admin write, saying when,
 * who (a user, an API key, or `system` with the automation's name), from which client address,
 * the operation, its target and the fields it changed. Secrets are never written: a field that
 * holds one shows only that it changed (`secretValue`).
 */
import { Context, type DateTime, Schema } from "effect"

import { Id, IdString, Text } from "./Fields.js"
import { Class } from "./Named.js"
import { UtcTimestamp } from "./Timestamps.js"

export const AuditEntryId = Id("AuditEntryId")
export type AuditEntryId = typeof AuditEntryId.Type

export const ActorType = Schema.Literals(["user", "apiKey", "system"])
export type ActorType = typeof ActorType.Type

/** Who did it; `id` is null for `system` (whose `name` is the automation's) and for the unknown e-mail of a failed sign-in. */
export const Actor = Schema.Struct({
  type: ActorType,
  id: Schema.NullOr(Schema.String),
  name: Schema.String
})
export type Actor = typeof Actor.Type

/** What was changed: a resource's type (`incident`, `component`, …), id and name as they were then. */
export const Target = Schema.Struct({
  type: Schema.String,
  id: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String)
})
export type Target = typeof Target.Type

/** A field's value before and after the change (null when the target was created or deleted). */
export const FieldChange = Schema.Struct({ before: Schema.Unknown, after: Schema.Unknown })
export type FieldChange = typeof FieldChange.Type

/** What an entry shows in place of a secret's value. */
export const secretValue = "(secret)"

export class AuditEntry extends Class<AuditEntry>("AuditEntry")({
  id: AuditEntryId,
  at: Schema.String,
  actor: Actor,
  clientAddress: Schema.NullOr(Schema.String),
  /** The operation, as the OpenAPI document's operationId names it (`incidents.create`), or the automation's. */
  operation: Schema.String,
  target: Target,
  changes: Schema.Record(Schema.String, FieldChange)
}) {}

/** The filters of `GET /api/v1/admin/audit-log`, besides `limit` and `cursor`. */
export const AuditFilterFields = {
  actorType: Schema.optionalKey(ActorType),
  actorId: Schema.optionalKey(IdString),
  operation: Schema.optionalKey(Text(100)),
  targetType: Schema.optionalKey(Text(100)),
  targetId: Schema.optionalKey(IdString),
  since: Schema.optionalKey(UtcTimestamp),
  until: Schema.optionalKey(UtcTimestamp)
}
export interface AuditFilter {
  readonly actorType?: ActorType | undefined
  readonly actorId?: string | undefined
  readonly operation?: string | undefined
  readonly targetType?: string | undefined
  readonly targetId?: string | undefined
  readonly since?: DateTime.Utc | undefined
  readonly until?: DateTime.Utc | undefined
}

/**
 * Who the writes of the current fiber are by: set by Authentication for an admin request (with
 * the operation and client address), by a local command or an automation for theirs. Outside
 * any of them a write is the system's.
 */
export interface AuditScope {
  readonly actor: Actor
  readonly clientAddress: string | null
  readonly operation: string | null
}

export const CurrentAuditScope = Context.Reference<AuditScope>("CurrentAuditScope", {
  defaultValue: () => ({ actor: { type: "system", id: null, name: "system" }, clientAddress: null, operation: null })
})

/** The scope of an automation acting on its own: `system` with its name. */
export const systemScope = (name: string): AuditScope => ({
  actor: { type: "system", id: null, name },
  clientAddress: null,
  operation: null
})
