/**
 * Invitations to the team (docs/authentication.md, "Team"). An owner invites an address with a
 * role; the invitee gets a link `{PUBLIC_URL}/admin/invitation#<token>` (256 random bits, only
 * their SHA-256 stored) that works once, for 72 hours. Its mail is queued with the invitation and
 * sent at once, and retried from the database like a confirmation mail while the link works.
 * Inviting the address again replaces the open invitation and its link.
 *
 * Opening the link reads the invitation (`inspect`) and accepts it (`accept`): a new address gets
 * an account with the invitation's role; an existing account proves its password (counted as a
 * sign-in attempt, so it is throttled like one) and takes the role, enabled again if it was
 * disabled. Both are limited per client address, so tokens cannot be guessed.
 */
import { createHash, randomBytes } from "node:crypto"

import { Clock, Context, Duration, Effect, FiberSet, Layer, Option } from "effect"

import { CurrentAuditScope } from "../../domain/Audit.js"
import type { UserId } from "../../domain/Auth.js"
import { BadRequest, Conflict, NotFound, Unauthorized } from "../../domain/Errors.js"
import { clientBudget } from "../../domain/NetworkAddress.js"
import type { PageRequest } from "../../domain/Page.js"
import {
  type AcceptInvitation,
  Invitation,
  type InvitationId,
  InvitationPreview,
  type Invite
} from "../../domain/Team.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import type { InvitationRow } from "../../persistence/InvitationsRepo.js"
import { InvitationsRepo } from "../../persistence/InvitationsRepo.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { UsersRepo } from "../../persistence/UsersRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { toUser, userScope, userTarget } from "../auth/Administrators.js"
import { DeviceCookies } from "../auth/DeviceCookies.js"
import { minimumPasswordLength, Passwords } from "../auth/Passwords.js"
import type { RateLimit } from "../auth/RateLimiter.js"
import { RateLimiter } from "../auth/RateLimiter.js"
import { Sessions } from "../auth/Sessions.js"
import { SignInThrottle } from "../auth/SignInThrottle.js"
import { invitationHours } from "../notifications/mail/InvitationMail.js"
import { MailDeliveries } from "../notifications/mail/MailDeliveries.js"
import { keepAnOwner, memberFields, toMember } from "./TeamMembers.js"

/** Reading and accepting invitations, together, per client address. */
export const invitationLinkLimit: RateLimit = { max: 20, window: Duration.minutes(15) }

const digest = (token: string) => createHash("sha256").update(token).digest()

const deadLink = () =>
  new NotFound({ message: "This invitation link does not work: it is unknown, revoked, used or expired" })

const invalidPassword = new Unauthorized({ message: "Invalid email or password" })

const toInvitation = (row: InvitationRow) =>
  new Invitation({
    id: row.id as InvitationId,
    email: row.email,
    role: row.role,
    invitedBy: row.invitedBy,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString()
  })

const invitationTarget = (row: InvitationRow) => ({ type: "invitation", id: row.id, name: row.email })

export class Invitations extends Context.Service<Invitations>()("Invitations", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const repo = yield* InvitationsRepo
    const users = yield* UsersRepo
    const mails = yield* MailDeliveries
    const audit = yield* AuditTrail
    const limiter = yield* RateLimiter
    const passwords = yield* Passwords
    const throttle = yield* SignInThrottle
    const devices = yield* DeviceCookies
    const sessions = yield* Sessions
    // Mail in flight when the service stops is interrupted with it; its claim runs out and the dispatcher sends it.
    const background = yield* FiberSet.make()
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => orUnavailable(sql.withTransaction(effect))

    /** The open invitation of a link, counted against the client's budget. */
    const openInvitation = (token: string, clientAddress: string) =>
      Effect.gen(function*() {
        yield* limiter.check(`invitation:client:${clientBudget(clientAddress)}`, invitationLinkLimit)
        const found = yield* repo.findOpenByTokenHash(digest(token), yield* now)
        if (Option.isNone(found)) return yield* deadLink()
        return found.value
      })

    return {
      listOpen: Effect.fn("Invitations.listOpen")(function*(page: PageRequest) {
        const found = yield* repo.listOpen(page)
        return { items: found.items.map(toInvitation), next: found.next }
      }),

      /** Invites `input.email`, replacing its open invitation; `invitedBy` is the inviting user, if any. */
      invite: Effect.fn("Invitations.invite")(function*(input: Invite, invitedBy: UserId | null) {
        const at = yield* now
        const token = randomBytes(32).toString("base64url")
        const { invitation, mail } = yield* transaction(Effect.gen(function*() {
          const member = yield* users.findByEmail(input.email)
          if (Option.isSome(member) && member.value.disabledAt === null) {
            return yield* new Conflict({ message: `${input.email} is a member of the team already` })
          }
          const invitation = yield* repo.replace({
            email: input.email,
            role: input.role,
            tokenHash: digest(token),
            invitedBy,
            createdAt: at,
            expiresAt: new Date(at.getTime() + Duration.toMillis(Duration.hours(invitationHours)))
          })
          // Queued already claimed, so this process sends it at once; a failure is retried from the database.
          const mail = yield* repo.queueMail(invitation, token, mails.leaseFrom(at))
          yield* audit.record({
            target: invitationTarget(invitation),
            changes: changesBetween(undefined, {
              email: invitation.email,
              role: invitation.role,
              expiresAt: invitation.expiresAt
            })
          })
          return { invitation, mail }
        }))
        yield* FiberSet.run(
          background,
          mails.attempt(mail).pipe(Effect.catch((error) => Effect.logWarning("Sending an invitation failed", error))),
          // Started after the answer: the request does not wait for the mail server.
          { startImmediately: false }
        )
        return toInvitation(invitation)
      }),

      /** Revokes an open invitation: its link stops working, and its unsent mail goes with it. */
      revoke: Effect.fn("Invitations.revoke")((id: InvitationId) =>
        transaction(Effect.gen(function*() {
          const removed = yield* repo.removeOpen(id)
          if (Option.isNone(removed)) return yield* NotFound.of("Invitation", id)
          yield* audit.record({
            target: invitationTarget(removed.value),
            changes: changesBetween({ email: removed.value.email, role: removed.value.role }, undefined)
          })
        }))
      ),

      /** What a link invites to, before it is accepted. */
      inspect: Effect.fn("Invitations.inspect")(function*(token: string, clientAddress: string) {
        const invitation = yield* openInvitation(token, clientAddress)
        const account = yield* users.findByEmail(invitation.email)
        return new InvitationPreview({
          email: invitation.email,
          role: invitation.role,
          existingAccount: Option.isSome(account),
          expiresAt: invitation.expiresAt.toISOString()
        })
      }),

      /**
       * Accepts the invitation of `input.token` and starts a session of its account, as sign-in
       * does. The link is used up in the transaction that creates or changes the account, so of
       * concurrent acceptances one succeeds and the others find it used (404).
       */
      accept: Effect.fn("Invitations.accept")(function*(
        input: AcceptInvitation,
        clientAddress: string,
        deviceCookie: string | undefined
      ) {
        const invitation = yield* openInvitation(input.token, clientAddress)
        const existing = yield* users.findByEmail(invitation.email)
        const scopeOf = (user: { readonly id: UserId | null; readonly email: string }) =>
          userScope(user, clientAddress, "auth.acceptInvitation")

        let passwordHash: string
        if (Option.isSome(existing)) {
          // The account's password, checked as a sign-in is: counted and throttled per account and client.
          const device = yield* devices.trustedFor(deviceCookie, invitation.email)
          const proven = yield* throttle.attempt(
            { email: invitation.email, clientAddress, device },
            Effect.map(
              passwords.verify(input.password, existing.value.passwordHash),
              (valid) => valid ? Option.some(existing.value) : Option.none()
            )
          )
          if (Option.isNone(proven)) {
            yield* audit.record({ target: userTarget(existing.value), operation: "auth.signInFailed" }).pipe(
              Effect.provideService(CurrentAuditScope, scopeOf(existing.value))
            )
            return yield* invalidPassword
          }
          passwordHash = existing.value.passwordHash
        } else {
          const issues = [
            ...(input.name === undefined ? [{ path: ["name"], message: "is required for a new account" }] : []),
            ...(input.password.length < minimumPasswordLength
              ? [{ path: ["password"], message: `must be at least ${minimumPasswordLength} characters` }]
              : [])
          ]
          if (issues.length > 0) return yield* BadRequest.fromIssues(issues)
          passwordHash = yield* passwords.hash(input.password)
        }

        const at = yield* now
        const user = yield* transaction(Effect.gen(function*() {
          const accepted = yield* repo.accept(digest(input.token), at)
          if (Option.isNone(accepted)) return yield* deadLink()
          const role = accepted.value.role
          if (Option.isNone(existing)) {
            const created = yield* users.insert({ email: invitation.email, name: input.name!, passwordHash, role })
            if (Option.isNone(created)) {
              // Rolled back with the acceptance: opening the link again finds the account.
              return yield* new BadRequest({
                message: "An account with this address was created meanwhile; open the invitation link again"
              })
            }
            yield* audit.record({
              target: userTarget(created.value),
              changes: changesBetween(undefined, { email: created.value.email, name: created.value.name, role })
            }).pipe(Effect.provideService(CurrentAuditScope, scopeOf(created.value)))
            return created.value
          }
          const owners = yield* users.lockEnabledOwners()
          const current = yield* users.lockByEmail(invitation.email)
          // Deleted, or its password changed, since it was proven: the proof no longer holds.
          if (Option.isNone(current) || current.value.passwordHash !== passwordHash) return yield* invalidPassword
          const before = current.value
          // The last enabled owner stays one: a team never loses its last owner to an invitation.
          const kept = yield* keepAnOwner(owners, before, { role, disabled: false }).pipe(
            Effect.as(role),
            Effect.catchTag("Conflict", () => Effect.succeed("owner" as const))
          )
          const updated = yield* users.update(before.id, { role: kept, disabledAt: null })
          yield* audit.record({
            target: userTarget(updated),
            changes: changesBetween(memberFields(toMember(before)), memberFields(toMember(updated)))
          }).pipe(Effect.provideService(CurrentAuditScope, scopeOf(updated)))
          return updated
        }))
        const token = yield* sessions.start(user.id, clientAddress)
        return { user: toUser(user), token, deviceCookie: yield* devices.issue(user) }
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      InvitationsRepo.layer,
      UsersRepo.layer,
      MailDeliveries.layer,
      AuditTrail.layer,
      RateLimiter.layer,
      Passwords.layer,
      SignInThrottle.layer,
      DeviceCookies.layer,
      Sessions.layer
    ])
  )
}
