/**
 * The audit log's table (migrations/0040_team.sql): entries are only ever appended here and read
 * newest first; a trigger refuses any update, and only `removeOlderThan` (housekeeping) deletes.
 */
import { Context, DateTime, Effect, Layer, Schema } from "effect"

import { AuditEntry, type AuditFilter, type AuditScope, FieldChange, type Target } from "../domain/Audit.js"
import type { PageRequest } from "../domain/Page.js"
import { isForeignKeyViolation, orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** Newest first; entries of one instant by id. */
const newestFirst: Keyset = {
  list: "audit-log",
  keys: [{ sql: "at", type: "timestamptz", descending: true }, { sql: "id", type: "text", descending: true }]
}

const EntryRow = Schema.Struct({
  id: Schema.String,
  at: Schema.Date,
  actorType: Schema.Literals(["user", "apiKey", "system"]),
  actorId: Schema.NullOr(Schema.String),
  actorName: Schema.String,
  clientAddress: Schema.NullOr(Schema.String),
  operation: Schema.String,
  targetType: Schema.String,
  targetId: Schema.NullOr(Schema.String),
  targetName: Schema.NullOr(Schema.String),
  changes: Schema.Record(Schema.String, FieldChange)
})

const toEntry = (row: typeof EntryRow.Type) =>
  new AuditEntry({
    id: row.id as AuditEntry["id"],
    at: row.at.toISOString(),
    actor: { type: row.actorType, id: row.actorId, name: row.actorName },
    clientAddress: row.clientAddress,
    operation: row.operation,
    target: { type: row.targetType, id: row.targetId, name: row.targetName },
    changes: row.changes
  })

export class AuditLogRepo extends Context.Service<AuditLogRepo>()("AuditLogRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const rows = rowsOf(EntryRow)

    const filters = (filter: AuditFilter) => [
      ...(filter.actorType === undefined ? [] : [sql`actor_type = ${filter.actorType}`]),
      ...(filter.actorId === undefined ? [] : [sql`actor_id = ${filter.actorId}`]),
      ...(filter.operation === undefined ? [] : [sql`operation = ${filter.operation}`]),
      ...(filter.targetType === undefined ? [] : [sql`target_type = ${filter.targetType}`]),
      ...(filter.targetId === undefined ? [] : [sql`target_id = ${filter.targetId}`]),
      ...(filter.since === undefined ? [] : [sql`at >= ${DateTime.toDateUtc(filter.since)}`]),
      ...(filter.until === undefined ? [] : [sql`at < ${DateTime.toDateUtc(filter.until)}`])
    ]

    return {
      /** Appends one entry, in the caller's transaction when there is one. */
      insert: (scope: AuditScope, entry: {
        readonly operation: string
        readonly target: Target
        readonly changes: Record<string, FieldChange>
      }) =>
        orUnavailable(sql`
          insert into audit_log (actor_type, actor_id, actor_name, client_address, operation,
            target_type, target_id, target_name, changes)
          values (${scope.actor.type}, ${scope.actor.id}, ${scope.actor.name}, ${scope.clientAddress},
            ${entry.operation}, ${entry.target.type}, ${entry.target.id}, ${entry.target.name},
            ${JSON.stringify(entry.changes)}::jsonb)`).pipe(Effect.asVoid),

      findPage: (filter: AuditFilter, page: PageRequest) =>
        readPage(
          sql,
          newestFirst,
          page,
          (p) =>
            sql`select *, ${p.pageKey} from audit_log where ${
              sql.and([p.after, ...filters(filter)])
            } ${p.orderBy} ${p.limit}`,
          (query) => Effect.map(rows.all(query), (found) => found.map(toEntry))
        ),

      /**
       * Records that `apiKeyId` was seen from `address`; true the first time, false for a key
       * deleted meanwhile (in the caller's transaction a savepoint, so the rest of it goes on).
       */
      firstUseFrom: (apiKeyId: string, address: string) =>
        orUnavailable(
          sql.withTransaction(sql`
            insert into api_key_addresses (api_key_id, address)
            select ${apiKeyId}, ${address} where exists (select from api_keys where id = ${apiKeyId})
            on conflict do nothing returning api_key_id`).pipe(
            Effect.catchIf(isForeignKeyViolation, () => Effect.succeed([]))
          )
        ).pipe(Effect.map((inserted) => inserted.length > 0)),

      /**
       * Housekeeping: deletes up to `limit` entries older than `before`, oldest first (an index
       * range of `audit_log_at`); returns how many. Another instance's batch is skipped.
       */
      removeOlderThan: (before: Date, limit: number) =>
        orUnavailable(sql`
          delete from audit_log
          where id in (select id from audit_log where at < ${before} order by at limit ${limit} for update skip locked)
          returning id`).pipe(Effect.map((deleted) => deleted.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
