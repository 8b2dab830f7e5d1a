/**
 * Invitations to the team (migrations/0040_team.sql) and their mail (0041): only the SHA-256 of
 * a link's token is kept with the invitation; its mail's row keeps the token in clear until the
 * mail is sent or given up, and goes with the invitation when it is revoked or replaced, or
 * when it is accepted. Times come from the caller (the Effect Clock), so expiry is testable.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"

import type { UserId } from "../domain/Auth.js"
import type { PageRequest } from "../domain/Page.js"
import { Role } from "../domain/Role.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { MailDelivery } from "./MailDeliveriesRepo.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

export class InvitationRow extends Schema.Class<InvitationRow>("InvitationRow")({
  id: Schema.String,
  email: Schema.String,
  role: Role,
  /** The name of the user who sent it; null when they are gone. */
  invitedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  expiresAt: Schema.Date
}) {}

/** Open invitations, oldest first. */
const invitationsInOrder: Keyset = {
  list: "invitations",
  keys: [{ sql: "i.created_at", type: "timestamptz" }, { sql: "i.id", type: "text" }]
}

const columns = "i.id, i.email, i.role, u.name as invited_by, i.created_at, i.expires_at"

export class InvitationsRepo extends Context.Service<InvitationsRepo>()("InvitationsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const invitations = rowsOf(InvitationRow)
    const queuedMail = rowsOf(Schema.Struct({
      id: Schema.String,
      attempts: Schema.Int,
      organization: Schema.String
    }))

    return {
      /** Invitations not accepted yet, expired ones included. */
      listOpen: (page: PageRequest) =>
        readPage(
          sql,
          invitationsInOrder,
          page,
          (p) =>
            sql`select ${sql.literal(columns)}, ${p.pageKey}
                from invitations i left join users u on u.id = i.invited_by
                where i.accepted_at is null and ${p.after} ${p.orderBy} ${p.limit}`,
          invitations.all
        ),

      /** Deletes the open invitations `userId` sent, with their unsent mail; how many. */
      removeOpenBy: (userId: string) =>
        orUnavailable(sql`delete from invitations where invited_by = ${userId} and accepted_at is null returning id`)
          .pipe(Effect.map((deleted) => deleted.length)),

      /** Deletes the open invitation `id` with its unsent mail; the deleted one, if any. */
      removeOpen: (id: string) =>
        invitations.first(sql`
          with deleted as (
            delete from invitations where id = ${id} and accepted_at is null
            returning id, email, role, invited_by, created_at, expires_at)
          select ${sql.literal(columns)} from deleted i left join users u on u.id = i.invited_by`),

      /**
       * Creates the invitation in place of the address's open one, which goes with its unsent
       * mail; call it inside a transaction. A concurrent invitation of the same address makes the
       * insert wait for it (the unique index of open invitations) and then find it: it is
       * replaced in turn, so the last to commit wins and neither fails.
       */
      replace: (invitation: {
        readonly email: string
        readonly role: Role
        readonly tokenHash: Buffer
        readonly invitedBy: UserId | null
        readonly createdAt: Date
        readonly expiresAt: Date
      }) =>
        Effect.gen(function*() {
          for (let attempt = 0;; attempt++) {
            yield* orUnavailable(sql`delete from invitations where email = ${invitation.email} and accepted_at is null`)
            const inserted = yield* invitations.first(sql`
              with inserted as (
                insert into invitations (email, role, token_hash, invited_by, created_at, expires_at)
                values (${invitation.email}, ${invitation.role}, ${invitation.tokenHash}, ${invitation.invitedBy},
                  ${invitation.createdAt}, ${invitation.expiresAt})
                on conflict (email) where accepted_at is null do nothing
                returning id, email, role, invited_by, created_at, expires_at)
              select ${sql.literal(columns)} from inserted i left join users u on u.id = i.invited_by`)
            if (Option.isSome(inserted)) return inserted.value
            // Bounded: each round waits for a concurrent invitation to commit, and replaces it.
            if (attempt >= 5) return yield* Effect.die(new Error("An invitation kept being replaced concurrently"))
          }
        }),

      /**
       * Queues the invitation's mail, claimed until `claimedUntil` for the caller to send at once,
       * and returns it as a claim would.
       */
      queueMail: (invitation: InvitationRow, token: string, claimedUntil: Date) =>
        queuedMail.one(sql`
          with queued as (
            insert into mail_deliveries (kind, invitation_id, verify_token, next_attempt_at)
            values ('invitation', ${invitation.id}, ${token}, ${claimedUntil})
            returning id, attempts)
          select queued.id, queued.attempts, coalesce(o.name, 'Status page') as organization
          from queued left join organizations o on true`).pipe(
          Effect.map((queued) =>
            new MailDelivery({
              id: queued.id,
              kind: "invitation",
              eventId: null,
              event: null,
              attempts: queued.attempts,
              email: invitation.email,
              unsubscribeToken: "",
              verifyToken: token,
              locale: "en",
              pageSlug: "",
              pageIsDefault: true,
              pageDomain: null,
              pageTitle: queued.organization,
              pageTimeZone: "UTC",
              invitationRole: invitation.role,
              invitedBy: invitation.invitedBy,
              invitationExpiresAt: invitation.expiresAt
            })
          )
        ),

      /** The invitation a link's token opens at `now`: unaccepted, unrevoked and unexpired. */
      findOpenByTokenHash: (tokenHash: Buffer, now: Date) =>
        invitations.first(sql`
          select ${sql.literal(columns)} from invitations i left join users u on u.id = i.invited_by
          where i.token_hash = ${tokenHash} and i.accepted_at is null and i.expires_at > ${now}`),

      /**
       * Marks the invitation of `tokenHash` accepted if it is still open at `now`, and deletes its
       * mail (which may hold the token): the link works once, whatever runs concurrently.
       */
      accept: (tokenHash: Buffer, now: Date) =>
        Effect.gen(function*() {
          const accepted = yield* invitations.first(sql`
            with accepted as (
              update invitations set accepted_at = ${now}
              where token_hash = ${tokenHash} and accepted_at is null and expires_at > ${now}
              returning id, email, role, invited_by, created_at, expires_at)
            select ${sql.literal(columns)} from accepted i left join users u on u.id = i.invited_by`)
          if (Option.isSome(accepted)) {
            yield* orUnavailable(sql`delete from mail_deliveries where invitation_id = ${accepted.value.id}`)
          }
          return accepted
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
