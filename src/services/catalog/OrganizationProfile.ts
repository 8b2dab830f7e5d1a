import { Context, Effect, Layer, Option, Semaphore } from "effect"

import { orNotFound } from "../../domain/Errors.js"
import type { Organization, OrganizationId, UpdateOrganization } from "../../domain/Organization.js"
import { OrganizationRepo } from "../../persistence/OrganizationRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { StateChanges, touch } from "../StateChanges.js"

/**
 * The one organization of the deployment, created on first start. Reads are served from memory
 * while StateChanges' version stands still: every change (this process's commits, and other
 * instances' through LISTEN/NOTIFY) moves the version and the next read goes to the database.
 * The profile changes only through `update`, which commits through StateChanges. Callers that
 * find the cache stale at the same moment (the dispatcher's attempts right after a commit) wait
 * for one read instead of each making their own.
 */
export class OrganizationProfile extends Context.Service<OrganizationProfile>()("OrganizationProfile", {
  make: Effect.gen(function*() {
    const repo = yield* OrganizationRepo
    const changes = yield* StateChanges
    const audit = yield* AuditTrail
    yield* repo.ensureExists()
    let cached: { readonly version: number; readonly profile: Organization } | undefined
    const reading = yield* Semaphore.make(1)
    const fresh = () =>
      cached !== undefined && cached.version === changes.version() ? Effect.succeed(cached.profile) : undefined

    const load = Effect.suspend(() => {
      // The version is taken before the read: a change committed during the read leaves the cache stale.
      const version = changes.version()
      return repo.find().pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.die(new Error("The organization row is missing")),
          onSome: (profile) => Effect.sync(() => (cached = { version, profile }, profile))
        }))
      )
    })

    return {
      get: () => Effect.suspend(() => fresh() ?? reading.withPermits(1)(Effect.suspend(() => fresh() ?? load))),
      // The organization's name titles the public feeds.
      update: Effect.fn("OrganizationProfile.update")((id: OrganizationId, update: UpdateOrganization) =>
        changes.commit(Effect.gen(function*() {
          yield* touch({ organization: true })
          const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Organization", id))
          const after = yield* repo.update(id, update).pipe(orNotFound("Organization", id))
          yield* audit.record({
            target: { type: "organization", id: after.id, name: after.name },
            changes: changesBetween(before, after)
          })
          return after
        })).pipe(Effect.ensuring(Effect.sync(() => (cached = undefined))))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([OrganizationRepo.layer, StateChanges.layer, AuditTrail.layer])
  )
}
