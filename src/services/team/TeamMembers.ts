/**
 * The team's members as owners manage them (docs/authentication.md, "Team"): their roles, and
 * disabling, enabling and deleting them. At least one enabled owner always remains: each change
 * locks the enabled owners' rows first (`keepAnOwner`), so two concurrent changes cannot each
 * see the other owner and leave none. Each change writes its audit entry in its own transaction.
 * A member who stops being an enabled owner (demoted, disabled, deleted) loses the open
 * invitations they sent: an invitation is only as good as its sender.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"

import type { FieldChange } from "../../domain/Audit.js"
import type { UserId } from "../../domain/Auth.js"
import { Conflict, NotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import type { Role } from "../../domain/Role.js"
import { TeamMember, type UpdateTeamMember } from "../../domain/Team.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { InvitationsRepo } from "../../persistence/InvitationsRepo.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { SessionsRepo } from "../../persistence/SessionsRepo.js"
import type { UserRow } from "../../persistence/UsersRepo.js"
import { UsersRepo } from "../../persistence/UsersRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { userTarget } from "../auth/Administrators.js"

export const toMember = (row: UserRow) =>
  new TeamMember({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabledAt !== null,
    createdAt: row.createdAt.toISOString()
  })

/** What an audit entry compares of a member. */
export const memberFields = (member: { readonly role: Role; readonly disabled: boolean }) => ({
  role: member.role,
  disabled: member.disabled
})

/** The entry's changes, with the open invitations the member had sent and that were revoked with the change. */
const withRevoked = (changes: Record<string, FieldChange>, revoked: number) =>
  revoked === 0 ? changes : { ...changes, openInvitations: { before: revoked, after: 0 } }

const lastOwner = new Conflict({
  message: "At least one enabled owner must remain: make another member owner first"
})

/**
 * Fails with Conflict when `before`, an enabled owner, would stop being one (`after`) while no
 * other enabled owner is left. `owners` are the enabled owners the transaction has locked
 * (UsersRepo.lockEnabledOwners).
 */
export const keepAnOwner = (
  owners: ReadonlyArray<string>,
  before: UserRow | null,
  after: { readonly role: Role; readonly disabled: boolean } | null
) => {
  const wasOwner = before !== null && before.role === "owner" && before.disabledAt === null
  const staysOwner = after !== null && after.role === "owner" && !after.disabled
  const others = owners.filter((id) => id !== before?.id).length
  return wasOwner && !staysOwner && others === 0 ? Effect.fail(lastOwner) : Effect.void
}

export class TeamMembers extends Context.Service<TeamMembers>()("TeamMembers", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const users = yield* UsersRepo
    const sessions = yield* SessionsRepo
    const invitations = yield* InvitationsRepo
    const audit = yield* AuditTrail
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => orUnavailable(sql.withTransaction(effect))

    /** The member, locked after the enabled owners (the order every team change takes them in). */
    const lockMember = (id: UserId) =>
      Effect.gen(function*() {
        const owners = yield* users.lockEnabledOwners()
        const found = yield* users.lockById(id)
        if (Option.isNone(found)) return yield* NotFound.of("User", id)
        return { owners, member: found.value }
      })

    return {
      list: Effect.fn("TeamMembers.list")(function*(page: PageRequest) {
        const found = yield* users.listPage(page)
        return { items: found.items.map(toMember), next: found.next }
      }),

      /**
       * Sets the member's role and/or disables or enables them. Disabling ends their sessions in
       * the same transaction (their API keys are refused from then on: ApiKeys.check); a member
       * disabled already keeps the time they were disabled.
       */
      update: Effect.fn("TeamMembers.update")(function*(id: UserId, patch: UpdateTeamMember) {
        const now = new Date(yield* Clock.currentTimeMillis)
        return yield* transaction(Effect.gen(function*() {
          const { member, owners } = yield* lockMember(id)
          const role = patch.role ?? member.role
          const disabledAt = patch.disabled === undefined
            ? member.disabledAt
            : patch.disabled
            ? member.disabledAt ?? now
            : null
          const after = { role, disabled: disabledAt !== null }
          yield* keepAnOwner(owners, member, after)
          const changes = changesBetween(memberFields(toMember(member)), memberFields(after))
          // Like every admin write, one that changes nothing still leaves its entry (with no changes).
          if (Object.keys(changes).length === 0) {
            yield* audit.record({ target: userTarget(member) })
            return toMember(member)
          }
          const updated = yield* users.update(id, { role, disabledAt })
          if (disabledAt !== null) yield* sessions.removeAllOfUser(id, null)
          // Only an enabled owner invites: the links of one who no longer is stop working with them.
          const revoked = role !== "owner" || disabledAt !== null ? yield* invitations.removeOpenBy(id) : 0
          yield* audit.record({ target: userTarget(updated), changes: withRevoked(changes, revoked) })
          return toMember(updated)
        }))
      }),

      /** Deletes the member with their sessions and API keys. */
      remove: Effect.fn("TeamMembers.remove")((id: UserId) =>
        transaction(Effect.gen(function*() {
          const { member, owners } = yield* lockMember(id)
          yield* keepAnOwner(owners, member, null)
          const revoked = yield* invitations.removeOpenBy(id)
          yield* users.remove(id)
          yield* audit.record({
            target: userTarget(member),
            changes: withRevoked(
              changesBetween({ email: member.email, name: member.name, ...memberFields(toMember(member)) }, undefined),
              revoked
            )
          })
        }))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([UsersRepo.layer, SessionsRepo.layer, InvitationsRepo.layer, AuditTrail.layer])
  )
}
