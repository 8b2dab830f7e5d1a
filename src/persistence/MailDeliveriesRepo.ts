/**
 * Mail waiting to be sent: subscriber mail, one row per (event, subscriber), retried on the
 * webhook schedule; the confirmation mail of a subscription request (queued by SubscribersRepo
 * with the request); and the mail of an invitation to the team (queued by InvitationsRepo with
 * the invitation). The last two are retried while their link works. Times come from the caller
 * (the Effect Clock), so schedules are testable.
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"

import { Locale } from "../domain/Locale.js"
import { Role } from "../domain/Role.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { clipError, dueIds, leaseEnd, statusAfter } from "./DeliveryQueueSql.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"
import { pageShows } from "./StatusPagesRepo.js"

/**
 * What a mail is rendered with besides its event: the subscriber's language, and the page it
 * subscribed to, whose title and time zone left unset are the organization's.
 */
export const mailPageFields = {
  locale: Locale,
  pageSlug: Schema.String,
  pageIsDefault: Schema.Boolean,
  pageDomain: Schema.NullOr(Schema.String),
  pageTitle: Schema.String,
  pageTimeZone: Schema.String
}

/** The columns of `mailPageFields` from subscriber `subscriber`, its page `page` and `organization` (SQL aliases). */
export const mailPageColumns = (subscriber: string, page: string, organization: string) =>
  `${subscriber}.locale, ${page}.slug as page_slug, ${page}.is_default as page_is_default,
   ${page}.domain as page_domain, coalesce(${page}.title, ${organization}.name) as page_title,
   coalesce(${page}.timezone, ${organization}.timezone) as page_time_zone`

/**
 * A claimed mail with the address, unsubscribe token, language and page it is rendered for. An
 * invitation's mail has no subscriber: no unsubscribe token (empty), English, and the
 * organization's name as its page title.
 */
export class MailDelivery extends Schema.Class<MailDelivery>("MailDelivery")({
  id: Schema.String,
  /** The notification of an event, the confirmation of a subscription request, or an invitation to the team. */
  kind: Schema.Literals(["notification", "confirmation", "invitation"]),
  /** Null but for a notification. */
  eventId: Schema.NullOr(Schema.String),
  /** The event as NotificationEvent encodes it; null but for a notification. */
  event: Schema.Unknown,
  attempts: Schema.Int,
  email: Schema.String,
  unsubscribeToken: Schema.String,
  /**
   * A confirmation's or invitation's token while its link still works (the subscription is not
   * confirmed, the invitation not accepted, revoked, replaced or expired); null otherwise.
   */
  verifyToken: Schema.NullOr(Schema.String),
  ...mailPageFields,
  /** An invitation's role, the name of who sent it (null when gone) and when its link stops working. */
  invitationRole: Schema.optionalKey(Schema.NullOr(Role)),
  invitedBy: Schema.optionalKey(Schema.NullOr(Schema.String)),
  invitationExpiresAt: Schema.optionalKey(Schema.NullOr(Schema.Date))
}) {}

export class MailDeliveriesRepo extends Context.Service<MailDeliveriesRepo>()("MailDeliveriesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const mails = rowsOf(MailDelivery)

    return {
      /**
       * One pending mail per verified subscriber for each event the public may see (its
       * incident or window is stored as public, as on the status page) on the subscriber's page,
       * in the events' order, due at `dueAt`, in one statement; returns how many mails were new.
       * An event is on a page that shows one of its public components; one naming no public
       * component is on the default page only. On its page, a subscriber of some components gets
       * the events naming one of them that the page shows, and those naming no public component.
       * An address subscribed to two pages showing the event is two subscribers: two mails.
       * Idempotent: an event handed over twice keeps its mails.
       */
      enqueueMany: (
        events: ReadonlyArray<
          {
            readonly id: string
            readonly encoded: unknown
            /** The components the event is about. */
            readonly componentIds: ReadonlyArray<string>
            /** The incident or window the event is about. */
            readonly subject: { readonly kind: "incident" | "maintenance"; readonly id: string }
          }
        >,
        dueAt: Date
      ) =>
        events.length === 0 ? Effect.succeed(0) : orUnavailable(sql<{ id: string }>`
          with e as materialized (
            select item ->> 'id' as id, item -> 'encoded' as encoded, n,
                   -- What a subscriber may have chosen: the event's public components.
                   array(select c.id from components c
                         where c.is_public and c.id in (select jsonb_array_elements_text(item -> 'componentIds')))
                     as public_component_ids
            from jsonb_array_elements(${JSON.stringify(events)}::jsonb) with ordinality as x (item, n)
            where case item #>> '{subject,kind}'
              when 'incident' then exists (
                select from incidents i where i.id = item #>> '{subject,id}' and i.is_public)
              when 'maintenance' then exists (
                select from maintenance_windows m where m.id = item #>> '{subject,id}' and m.is_public)
              else false end
          ),
          -- The pages each event is on (few pages), with the event's public components each shows;
          -- their subscribers are then found by page. Both materialized: inlined, the planner
          -- computed these arrays once per subscriber.
          on_page as materialized (
            select e.id, e.encoded, e.n, p.id as page_id, shown.component_ids
            from e cross join status_pages p
            cross join lateral (
              select array(select c.id from components c
                           where c.id = any(e.public_component_ids) and ${sql.literal(pageShows("p", "c"))})
                as component_ids) shown
            where cardinality(shown.component_ids) > 0 or (cardinality(e.public_component_ids) = 0 and p.is_default)
          )
          insert into mail_deliveries (event_id, event, subscriber_id, next_attempt_at)
          select o.id, o.encoded, s.id, ${dueAt}
          from on_page o join subscribers s on s.page_id = o.page_id
          where s.verified_at is not null
            and (s.all_components or cardinality(o.component_ids) = 0 or exists (
              select from subscriber_components sc
              where sc.subscriber_id = s.id and sc.component_id = any(o.component_ids)))
          order by o.n, s.created_at, s.id
          on conflict (subscriber_id, event_id) do nothing
          returning id`).pipe(Effect.map((rows) => rows.length)),

      /**
       * Claims up to `limit` due mails, oldest first, pushing them `lease` ahead like webhook
       * deliveries. A confirmation comes with its token only while the subscriber's pending link
       * is still that token's and unexpired: a link used, replaced or expired is not mailed. An
       * invitation likewise, while the invitation is open, unexpired and still that token's.
       */
      claimDue: (now: Date, limit: number, lease: Duration.Duration) =>
        mails.all(sql`
          with claimed as (
            update mail_deliveries
            set next_attempt_at = ${leaseEnd(now, lease)}, updated_at = now()
            where id in (${dueIds(sql, "mail_deliveries", now, limit)})
            returning id, kind, event_id, event, attempts, subscriber_id, invitation_id, verify_token, sequence)
          select claimed.id, claimed.kind, claimed.event_id, claimed.event, claimed.attempts,
                 coalesce(s.email, i.email) as email, coalesce(s.unsubscribe_token, '') as unsubscribe_token,
                 case
                   when claimed.kind = 'confirmation' and s.verify_expires_at > ${now}
                     and s.verify_token_hash = encode(sha256(convert_to(claimed.verify_token, 'UTF8')), 'hex')
                     then claimed.verify_token
                   when claimed.kind = 'invitation' and i.accepted_at is null and i.expires_at > ${now}
                     and i.token_hash = sha256(convert_to(claimed.verify_token, 'UTF8'))
                     then claimed.verify_token
                 end as verify_token,
                 coalesce(s.locale, 'en') as locale, coalesce(p.slug, '') as page_slug,
                 coalesce(p.is_default, true) as page_is_default, p.domain as page_domain,
                 coalesce(p.title, o.name) as page_title, coalesce(p.timezone, o.timezone) as page_time_zone,
                 i.role as invitation_role, inviter.name as invited_by, i.expires_at as invitation_expires_at
          from claimed
          left join subscribers s on s.id = claimed.subscriber_id
          left join status_pages p on p.id = s.page_id
          left join invitations i on i.id = claimed.invitation_id
          left join users inviter on inviter.id = i.invited_by
          left join organizations o on true
          where p.id is not null or i.id is not null
          order by claimed.sequence`),

      /**
       * Records attempt `attempts + 1`: sent, pending until `retryAt`, or failed for good without
       * one, with the mail server's reply code when it answered (`replyCode`, migration 0037). A
       * confirmation's or invitation's token is erased once the mail is no longer pending.
       */
      recordAttempt: (mail: MailDelivery, error: string | null, retryAt: Date | null, replyCode: number | null) => {
        const status = statusAfter("sent", error === null, retryAt)
        return orUnavailable(sql`
          update mail_deliveries
          set status = ${status},
              attempts = attempts + 1, next_attempt_at = ${error === null ? null : retryAt},
              last_error = ${clipError(error)}, last_reply_code = ${replyCode},
              verify_token = ${sql.literal(status === "pending" ? "verify_token" : "null")}, updated_at = now()
          where id = ${mail.id}`).pipe(Effect.asVoid)
      }
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
