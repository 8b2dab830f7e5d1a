/**
 * Status pages (docs/api.md, "Status pages"): the `status_pages` row and its layout in
 * `status_page_items` (position = index in the page's `items`; `all_components` when it has none).
 */
import { createHash } from "node:crypto"

import { Context, Effect, Layer, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"

import { Conflict, type ServiceUnavailable } from "../domain/Errors.js"
import { Locale } from "../domain/Locale.js"
import type { PageRequest } from "../domain/Page.js"
import {
  Audience,
  FooterLink,
  type PageDefinition,
  PageItem,
  StatusPage,
  type StatusPageId
} from "../domain/StatusPage.js"
import { orUnavailable, sqlState } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/**
 * Whether page `page` shows component `component` (both SQL aliases; the component's publicness
 * is the caller's to check): every component when the page lists none, else those it lists and
 * the members of the public groups it lists (a private group is on no page, as the public page
 * shows it: public/state/Site.ts). The page's items are found by its primary key.
 */
export const pageShows = (page: string, component: string) =>
  `(${page}.all_components or exists (
    select from status_page_items i
    where i.page_id = ${page}.id and (i.component_id = ${component}.id or (
      i.group_id = ${component}.group_id
      and exists (select from component_groups g where g.id = i.group_id and g.is_public)))))`

/** The default page first, then by slug (unique). */
const pagesInOrder: Keyset = {
  list: "status-pages",
  keys: [{ sql: "is_default", type: "boolean", descending: true }, { sql: "slug", type: "text" }]
}

/**
 * The advisory lock (`pg_advisory_xact_lock(int4, int4)`) a transaction that moves the default
 * takes first: two such changes in turn, the second sees the first's default and clears it, where
 * both would otherwise clear the old one and meet at `status_pages_one_default` (a 409).
 */
const defaultPageLock = [2021, 0] as const

/** A row as stored, with its items in their order and the password's hash. */
const StoredPage = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  title: Schema.NullOr(Schema.String),
  description: Schema.String,
  logoUrl: Schema.NullOr(Schema.String),
  brandColor: Schema.NullOr(Schema.String),
  locale: Locale,
  languages: Schema.Array(Locale),
  timezone: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  audience: Audience,
  passwordHash: Schema.NullOr(Schema.String),
  isDefault: Schema.Boolean,
  allComponents: Schema.Boolean,
  footerLinks: Schema.Array(FooterLink),
  items: Schema.Array(PageItem),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})
export type StoredPage = typeof StoredPage.Type

/** The page as the admin API answers it: without its password. */
export const pageOf = (row: StoredPage): StatusPage =>
  new StatusPage({
    id: row.id as StatusPageId,
    slug: row.slug,
    title: row.title,
    description: row.description,
    logoUrl: row.logoUrl,
    brandColor: row.brandColor,
    locale: row.locale,
    languages: row.languages,
    timeZone: row.timezone,
    domain: row.domain,
    audience: row.audience,
    isDefault: row.isDefault,
    items: row.allComponents ? null : row.items,
    footerLinks: row.footerLinks,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

/** Short and stable: readers' cookies are signed over it, so a new password ends their access. */
export const passwordTagOf = (hash: string | null) =>
  hash === null ? null : createHash("sha256").update(hash, "utf8").digest("hex").slice(0, 16)

/** What a write stores; `items` null shows every public component. */
export interface PageFields {
  readonly slug: string
  readonly title: string | null
  readonly description: string
  readonly logoUrl: string | null
  readonly brandColor: string | null
  readonly locale: Locale
  readonly languages: ReadonlyArray<Locale>
  readonly timeZone: string | null
  readonly domain: string | null
  readonly audience: Audience
  readonly passwordHash: string | null
  readonly isDefault: boolean
  readonly footerLinks: ReadonlyArray<FooterLink>
}

/**
 * A slug or domain another page has (their unique constraints, SQLSTATE 23505) is a 409, and so
 * is another page made the default meanwhile (`status_pages_one_default`).
 */
const uniqueTaken =
  (fields: { readonly slug?: string | undefined; readonly domain?: string | null | undefined }) =>
  <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
    Effect.catchIf(
      effect,
      (error) => sqlState(error) === "23505",
      (error) => {
        // The server names the constraint, and the key in its detail ("Key (domain)=(…) already exists").
        const cause = error.reason.cause as { constraint?: unknown; detail?: unknown } | undefined
        const on = (column: string, constraint: string) =>
          cause?.constraint === constraint || String(cause?.detail ?? "").startsWith(`Key (${column})=`)
        const message = on("is_default", "status_pages_one_default")
          ? "Another page was made the default meanwhile; read the pages again and retry"
          : on("domain", "status_pages_domain_key")
          ? `A status page with the domain ${JSON.stringify(fields.domain)} already exists`
          : `A status page with the slug ${JSON.stringify(fields.slug)} already exists`
        return Effect.fail(new Conflict({ message }))
      }
    )

export class StatusPagesRepo extends Context.Service<StatusPagesRepo>()("StatusPagesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const stored = rowsOf(StoredPage)
    const addressed = rowsOf(Schema.Struct({ id: Schema.String, locale: Locale, audience: Audience }))

    const withItems = sql.literal(`
      select p.*,
             coalesce((select json_agg(json_build_object(
                                'type', case when i.component_id is null then 'group' else 'component' end,
                                'id', coalesce(i.component_id, i.group_id)) order by i.position)
                       from status_page_items i where i.page_id = p.id), '[]') as items
      from status_pages p`)

    const findStored = (id: string) => stored.first(sql`${withItems} where p.id = ${id}`)

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          pagesInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from (${withItems}) p where ${p.after} ${p.orderBy} ${p.limit}`,
          (rows) => Effect.map(stored.all(rows), (pages) => pages.map(pageOf))
        ),

      /** Every page with its password's tag, for the public side: the default first, then by slug. */
      findAll: (): Effect.Effect<ReadonlyArray<PageDefinition>, ServiceUnavailable> =>
        Effect.map(
          stored.all(sql`${withItems} order by p.is_default desc, p.slug`),
          (rows) => rows.map((row) => ({ page: pageOf(row), passwordTag: passwordTagOf(row.passwordHash) }))
        ),

      /**
       * The page of `slug` (absent: the default page) with its language and audience; none when no
       * page has it.
       */
      findBySlug: (slug: string | undefined) =>
        addressed.first(
          slug === undefined
            ? sql`select id, locale, audience from status_pages where is_default`
            : sql`select id, locale, audience from status_pages where slug = ${slug}`
        ),

      findById: (id: string) => Effect.map(findStored(id), Option.map(pageOf)),

      /** The stored row, locked until the transaction ends: writers of one page take it in turn. */
      findForUpdate: (id: string) => stored.first(sql`${withItems} where p.id = ${id} for update of p`),

      /** The page's audience and password hash, for checking a reader's password. */
      passwordHashOf: (id: string) =>
        Effect.map(
          orUnavailable(sql<{ passwordHash: string | null }>`
            select password_hash from status_pages where id = ${id} and audience = 'protected'`),
          (rows) => Option.fromNullishOr(rows[0]?.passwordHash)
        ),

      /**
       * The ids among these that exist, locked against a concurrent delete until the transaction
       * ends: groups first, then components, as a group's delete takes them.
       */
      existing: (componentIds: ReadonlyArray<string>, groupIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const groups = groupIds.length === 0 ? [] : yield* orUnavailable(sql<{ id: string }>`
            select id from component_groups where id = any(${[...groupIds]}::text[]) order by id for share`)
          const components = componentIds.length === 0 ? [] : yield* orUnavailable(sql<{ id: string }>`
            select id from components where id = any(${[...componentIds]}::text[]) order by id for share`)
          return {
            components: new Set(components.map((row) => row.id)),
            groups: new Set(groups.map((row) => row.id))
          }
        }),

      /**
       * The default page no longer is; the caller makes another one the default in the same
       * transaction. Waits for another transaction moving the default to end, then reads afresh.
       */
      clearDefault: () =>
        Effect.andThen(
          orUnavailable(sql`select pg_advisory_xact_lock(${defaultPageLock[0]}, ${defaultPageLock[1]})`),
          orUnavailable(sql`update status_pages set is_default = false, updated_at = now() where is_default`)
        ),

      insert: (fields: PageFields, allComponents: boolean) =>
        orUnavailable(
          sql<{ id: StatusPageId }>`
            insert into status_pages (slug, title, description, logo_url, brand_color, locale, languages, timezone,
                                      domain, audience, password_hash, is_default, all_components, footer_links)
            values (${fields.slug}, ${fields.title}, ${fields.description}, ${fields.logoUrl}, ${fields.brandColor},
                    ${fields.locale}, ${[...fields.languages]}::text[], ${fields.timeZone}, ${fields.domain},
                    ${fields.audience}, ${fields.passwordHash}, ${fields.isDefault}, ${allComponents},
                    ${JSON.stringify(fields.footerLinks)}::jsonb)
            returning id`.pipe(uniqueTaken(fields))
        ).pipe(Effect.map((rows) => rows[0]!.id)),

      /** Writes the whole row as `fields` gives it, and `updated_at`. */
      update: (id: string, fields: PageFields, allComponents: boolean) =>
        orUnavailable(
          sql`
            update status_pages set
              slug = ${fields.slug}, title = ${fields.title}, description = ${fields.description},
              logo_url = ${fields.logoUrl}, brand_color = ${fields.brandColor}, locale = ${fields.locale},
              languages = ${[...fields.languages]}::text[], timezone = ${fields.timeZone}, domain = ${fields.domain},
              audience = ${fields.audience}, password_hash = ${fields.passwordHash}, is_default = ${fields.isDefault},
              all_components = ${allComponents}, footer_links = ${JSON.stringify(fields.footerLinks)}::jsonb,
              updated_at = now()
            where id = ${id}`.pipe(uniqueTaken(fields))
        ),

      /** Replaces the page's layout: position = index. */
      setItems: (id: string, items: ReadonlyArray<PageItem>) =>
        Effect.gen(function*() {
          yield* orUnavailable(sql`delete from status_page_items where page_id = ${id}`)
          if (items.length === 0) return
          yield* orUnavailable(sql`
            insert into status_page_items (page_id, position, component_id, group_id)
            select ${id}, (e.position - 1)::integer,
                   case when e.item ->> 'type' = 'component' then e.item ->> 'id' end,
                   case when e.item ->> 'type' = 'group' then e.item ->> 'id' end
            from jsonb_array_elements(${JSON.stringify(items)}::jsonb) with ordinality as e(item, position)`)
        }),

      /** True when a page was deleted; its items and subscribers go with it (foreign keys). */
      remove: (id: string) =>
        orUnavailable(sql`delete from status_pages where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
