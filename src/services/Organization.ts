import { Effect, Option } from "effect"
import { orNotFound } from "../domain/Errors.js"
import type { OrganizationId, UpdateOrganization } from "../domain/Organization.js"
import { OrganizationRepo } from "../persistence/OrganizationRepo.js"

/** The one organization of the deployment, created on first start. */
export class OrganizationProfile extends Effect.Service<OrganizationProfile>()("OrganizationProfile", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationRepo
    yield* repo.ensureExists()
    return {
      get: () =>
        repo.find().pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.dieMessage("The organization row is missing"),
            onSome: Effect.succeed
          }))
        ),
      update: (id: OrganizationId, changes: UpdateOrganization) =>
        repo.update(id, changes).pipe(orNotFound("Organization", id))
    } as const
  }),
  dependencies: [OrganizationRepo.Default]
}) {}
