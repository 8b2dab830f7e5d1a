import { Context, Effect, Layer, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"

import { BadRequest, NotFound } from "../domain/Errors.js"
import { Locale } from "../domain/Locale.js"
import type { PageRequest } from "../domain/Page.js"
import type { SubscriberId } from "../domain/Subscriber.js"
import { Subscriber } from "../domain/Subscriber.js"
import { isForeignKeyViolation, orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { MailDelivery, mailPageColumns, mailPageFields } from "./MailDeliveriesRepo.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"
import { pageShows } from "./StatusPagesRepo.js"

/** A subscriber's components, in the page's order; null when it takes every component. */
const componentIdsOf = (alias: string) =>
  `case when ${alias}.all_components then null else array(
    select sc.component_id from subscriber_components sc join components c on c.id = sc.component_id
    where sc.subscriber_id = ${alias}.id order by c.display_order, c.name, c.id) end as component_ids`

const subscriberColumns = `id, email, verified_at is not null as verified, created_at, verified_at, ${
  componentIdsOf("subscribers")
}, page_id, locale`

/** The 404 of a page that is not there (or, to the public API, not public). */
export const noPage = () => new NotFound({ message: "No status page has this slug" })

/** Subscribers in the order they came. */
const subscribersInOrder: Keyset = {
  list: "subscribers",
  keys: [{ sql: "created_at", type: "timestamptz" }, { sql: "id", type: "text" }]
}

export class SubscribersRepo extends Context.Service<SubscribersRepo>()("SubscribersRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const subscribers = rowsOf(Subscriber)
    const verifiedEmail = rowsOf(Schema.Struct({ email: Schema.String }))
    const preferences = rowsOf(
      Schema.Struct({
        email: Schema.String,
        componentIds: Schema.NullOr(Schema.Array(Schema.String)),
        pageId: Schema.String,
        locale: Locale
      })
    )
    const ids = rowsOf(Schema.Struct({ id: Schema.String }))

    /**
     * The CTEs that make the subscriber of CTE `subscriber` (if any) take `componentIds` (null:
     * all): rows not chosen go, chosen public components of its page come. One statement, no key
     * both deleted and inserted; a component deleted, made private or taken off the page since the
     * check is skipped. `subscriber` has the columns `id` and `page_id`.
     */
    const chooseComponents = (componentIds: ReadonlyArray<string> | null) => {
      const chosen = [...componentIds ?? []]
      return sql`
          dropped as (
            delete from subscriber_components sc using subscriber
            where sc.subscriber_id = subscriber.id and sc.component_id <> all(${chosen}::text[])),
          added as (
            insert into subscriber_components (subscriber_id, component_id)
            select subscriber.id, c.id from subscriber
              join status_pages p on p.id = subscriber.page_id
              join components c on c.id = any(${chosen}::text[]) and c.is_public and ${sql.literal(pageShows("p", "c"))}
            on conflict do nothing)`
    }
    /**
     * A chosen component deleted between the caller's check and this write is gone when the
     * foreign key is checked: the caller's 400 for an unknown component, not a 500; the page
     * deleted meanwhile is its 404.
     */
    const componentDeleted = <A, R>(statement: Effect.Effect<A, SqlError.SqlError, R>) =>
      Effect.catchIf(
        statement,
        isForeignKeyViolation,
        (error) =>
          Effect.fail<BadRequest | NotFound>(
            (error.reason.cause as { constraint?: unknown } | undefined)?.constraint === "subscribers_page_id_fkey"
              ? noPage()
              : new BadRequest({ message: "Unknown componentIds: a chosen component was just deleted" })
          )
      )
    const queuedConfirmation = rowsOf(
      Schema.Struct({
        id: Schema.String,
        attempts: Schema.Int,
        email: Schema.String,
        unsubscribeToken: Schema.String,
        ...mailPageFields
      })
    )

    return {
      findById: (id: string) =>
        subscribers.first(sql`select ${sql.literal(subscriberColumns)} from subscribers where id = ${id}`),

      findPage: (page: PageRequest) =>
        readPage(
          sql,
          subscribersInOrder,
          page,
          (p) =>
            sql`select ${sql.literal(subscriberColumns)}, ${p.pageKey} from subscribers
                where ${p.after} ${p.orderBy} ${p.limit}`,
          subscribers.all
        ),

      /**
       * Records a subscription request to page `pageId`. An address new to the page or still
       * unverified on it gets the new token (the previous link stops working) and, in the same
       * statement, its confirmation mail: queued in `mail_deliveries` in place of the previous
       * one, claimed until `claimedUntil` for the caller to send, and returned; its components
       * become `componentIds` (null: all) and its language `locale`, which confirming the new link
       * confirms. An address verified on the page is left alone and gets none. Another page's
       * subscription of the address is another row, untouched.
       */
      request: (request: {
        readonly email: string
        readonly pageId: string
        readonly locale: Locale
        readonly componentIds: ReadonlyArray<string> | null
        readonly token: string
        readonly tokenHash: string
        readonly expiresAt: Date
        readonly unsubscribeToken: string
        readonly claimedUntil: Date
      }) =>
        queuedConfirmation.first(componentDeleted(sql`
          with subscriber as (
            insert into subscribers
              (email, page_id, locale, verify_token_hash, verify_expires_at, unsubscribe_token, all_components)
            values (${request.email}, ${request.pageId}, ${request.locale}, ${request.tokenHash}, ${request.expiresAt},
                    ${request.unsubscribeToken}, ${request.componentIds === null})
            on conflict (page_id, email) do update
              set verify_token_hash = excluded.verify_token_hash,
                  verify_expires_at = excluded.verify_expires_at,
                  all_components = excluded.all_components,
                  locale = excluded.locale,
                  updated_at = now()
              where subscribers.verified_at is null
            returning id, email, unsubscribe_token, page_id, locale),
          ${chooseComponents(request.componentIds)},
          replaced as (
            delete from mail_deliveries m using subscriber
            where m.subscriber_id = subscriber.id and m.kind = 'confirmation'),
          queued as (
            insert into mail_deliveries (kind, subscriber_id, verify_token, next_attempt_at)
            select 'confirmation', id, ${request.token}, ${request.claimedUntil} from subscriber
            returning id, attempts)
          select queued.id, queued.attempts, subscriber.email, subscriber.unsubscribe_token,
                 ${sql.literal(mailPageColumns("subscriber", "p", "o"))}
          from queued cross join subscriber
          join status_pages p on p.id = subscriber.page_id
          left join organizations o on true`)).pipe(
          Effect.map(Option.map((queued) =>
            new MailDelivery({
              ...queued,
              kind: "confirmation",
              eventId: null,
              event: null,
              verifyToken: request.token
            })
          ))
        ),

      /** Whether a confirmation link is pending: unused, unexpired, not replaced. */
      isPending: (tokenHash: string, now: Date) =>
        orUnavailable(sql`
          select 1 from subscribers where verify_token_hash = ${tokenHash} and verify_expires_at > ${now}`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      /**
       * Verifies the subscriber holding an unexpired token; the token is used up, and the
       * confirmation mail's row, which may hold it in clear, goes with it.
       */
      verify: (tokenHash: string, now: Date) =>
        verifiedEmail.first(sql`
          with verified as (
            update subscribers
            set verified_at = ${now}, verify_token_hash = null, verify_expires_at = null, updated_at = now()
            where verify_token_hash = ${tokenHash} and verify_expires_at > ${now}
            returning id, email),
          confirmations as (
            delete from mail_deliveries m using verified
            where m.subscriber_id = verified.id and m.kind = 'confirmation')
          select email from verified`),

      /** True when the pair matched and the subscriber is gone. */
      unsubscribe: (email: string, unsubscribeToken: string) =>
        orUnavailable(sql`
          delete from subscribers where email = ${email} and unsubscribe_token = ${unsubscribeToken} returning id`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      /**
       * The subscription an address and unsubscribe token name, as its preferences page shows it:
       * with its page and language.
       */
      findPreferences: (email: string, unsubscribeToken: string) =>
        preferences.first(sql`
          select email, ${sql.literal(componentIdsOf("s"))}, page_id, locale from subscribers s
          where email = ${email} and unsubscribe_token = ${unsubscribeToken}`),

      /**
       * Makes the subscription an address and unsubscribe token name take `componentIds` (null:
       * all); false when the pair matches none. The subscriber's row is locked first, in a
       * statement of its own: the change then reads the components as a concurrent save left
       * them, and replaces them whole. In one statement it read them as they were before that
       * save, kept what the save had added, and the two choices merged.
       */
      choose: (email: string, unsubscribeToken: string, componentIds: ReadonlyArray<string> | null) =>
        sql.withTransaction(Effect.gen(function*() {
          const locked = yield* ids.all(sql`
            select id from subscribers where email = ${email} and unsubscribe_token = ${unsubscribeToken}
            for update`)
          if (locked.length === 0) return false
          yield* ids.all(componentDeleted(sql`
            with subscriber as (
              update subscribers set all_components = ${componentIds === null}, updated_at = now()
              where id = ${locked[0]!.id}
              returning id, page_id),
            ${chooseComponents(componentIds)}
            select id from subscriber`))
          return true
        })).pipe(orUnavailable),

      /**
       * Those of `componentIds` that name public components page `pageId` shows: what a reader of
       * the page may subscribe to.
       */
      pageComponents: (pageId: string, componentIds: ReadonlyArray<string>) =>
        ids.all(sql`
          select c.id from components c join status_pages p on p.id = ${pageId}
          where c.id = any(${[...componentIds]}::text[]) and c.is_public and ${sql.literal(pageShows("p", "c"))}`)
          .pipe(Effect.map((rows) => new Set(rows.map((row) => row.id)))),

      remove: (id: SubscriberId) =>
        orUnavailable(sql`delete from subscribers where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /** Deletes up to `limit` unverified subscribers whose link expired before `now`; returns how many. */
      removeUnverifiedExpired: (now: Date, limit: number) =>
        orUnavailable(sql`
          delete from subscribers
          where id in (
            select id from subscribers where verified_at is null and verify_expires_at < ${now}
            limit ${limit} for update skip locked)
          and verified_at is null and verify_expires_at < ${now}
          returning id`).pipe(Effect.map((rows) => rows.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
