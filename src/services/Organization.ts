import { Effect, Option } from "effect"
import { orNotFound } from "../domain/Errors.js"
import type { OrganizationId, UpdateOrganization } from "../domain/Organization.js"
import { OrganizationRepo } from "../persistence/OrganizationRepo.js"
import { StateChanges } from "./StateChanges.js"

/** The one organization of the deployment, created on first start. */
export class OrganizationProfile extends Effect.Service<OrganizationProfile>()("OrganizationProfile", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationRepo
    const changes = yield* StateChanges
    yield* repo.ensureExists()
    return {
      get: () =>
        repo.find().pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.dieMessage("The organization row is missing"),
            onSome: Effect.succeed
          }))
        ),
      // The organization's name titles the public feeds.
      update: (id: OrganizationId, update: UpdateOrganization) =>
        changes.commit(repo.update(id, update)).pipe(orNotFound("Organization", id))
    } as const
  }),
  dependencies: [OrganizationRepo.Default, StateChanges.Default]
}) {}
