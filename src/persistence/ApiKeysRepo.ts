import { Context, Effect, Layer, Schema } from "effect"

import type { ApiKeyId } from "../domain/Auth.js"
import { ApiKey, UserId } from "../domain/Auth.js"
import type { PageRequest } from "../domain/Page.js"
import { Role } from "../domain/Role.js"
import { StatusPageId } from "../domain/StatusPage.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** What authentication needs of a key: never sent to a client. */
export class ApiKeyCredential extends Schema.Class<ApiKeyCredential>("ApiKeyCredential")({
  id: Schema.String,
  name: Schema.String,
  keyHash: Schema.Uint8Array,
  role: Role,
  pageIds: Schema.NullOr(Schema.Array(StatusPageId)),
  createdBy: Schema.NullOr(UserId),
  /** The creator's role now, and whether they are disabled (null for a key made by the CLI). */
  creatorRole: Schema.NullOr(Role),
  creatorDisabled: Schema.NullOr(Schema.Boolean),
  expiresAt: Schema.NullOr(Schema.Date),
  lastUsedAt: Schema.NullOr(Schema.Date)
}) {}

const columns = "id, name, prefix, role, page_ids, created_at, last_used_at, expires_at"

/** Keys in the order they were made. */
const keysInOrder: Keyset = {
  list: "api-keys",
  keys: [{ sql: "created_at", type: "timestamptz" }, { sql: "id", type: "text" }]
}

export class ApiKeysRepo extends Context.Service<ApiKeysRepo>()("ApiKeysRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const keys = rowsOf(ApiKey)
    const credentials = rowsOf(ApiKeyCredential)
    return {
      findById: (id: string) => keys.first(sql`select ${sql.literal(columns)} from api_keys where id = ${id}`),

      listPage: (page: PageRequest) =>
        readPage(
          sql,
          keysInOrder,
          page,
          (p) =>
            sql`select ${sql.literal(columns)}, ${p.pageKey} from api_keys where ${p.after} ${p.orderBy} ${p.limit}`,
          keys.all
        ),
      insert: (key: {
        name: string
        prefix: string
        keyHash: Buffer
        role: Role
        pageIds: ReadonlyArray<StatusPageId> | null
        createdBy: UserId | null
        createdAt: Date
        expiresAt: Date | null
      }) =>
        keys.one(sql`
          insert into api_keys (name, prefix, key_hash, role, page_ids, created_by, created_at, expires_at)
          values (${key.name}, ${key.prefix}, ${key.keyHash}, ${key.role},
            ${key.pageIds === null ? null : [...key.pageIds]}::text[],
            ${key.createdBy}, ${key.createdAt}, ${key.expiresAt})
          returning ${sql.literal(columns)}`),
      findByPrefix: (prefix: string) =>
        credentials.all(sql`
          select k.id, k.name, k.key_hash, k.role, k.page_ids, k.created_by, k.expires_at, k.last_used_at,
            u.role as creator_role, u.disabled_at is not null as creator_disabled
          from api_keys k left join users u on u.id = k.created_by
          where k.prefix = ${prefix}`),
      /** Which of `ids` no status page has. */
      unknownPages: (ids: ReadonlyArray<string>) =>
        orUnavailable(sql<{ id: string }>`
          select id from unnest(${[...ids]}::text[]) as given(id)
          where not exists (select 1 from status_pages p where p.id = given.id)`).pipe(
          Effect.map((rows) => rows.map((row) => row.id))
        ),
      markUsed: (id: string, at: Date) => orUnavailable(sql`update api_keys set last_used_at = ${at} where id = ${id}`),
      remove: (id: ApiKeyId) =>
        orUnavailable(sql`delete from api_keys where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
