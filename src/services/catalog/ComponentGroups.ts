/** Component groups: the headings the public page shows components under. */
import { Context, Effect, Layer } from "effect"

import type { ComponentGroupId, CreateComponentGroup, UpdateComponentGroup } from "../../domain/ComponentGroup.js"
import { NotFound, orNotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { StateChanges, touchesComponents } from "../StateChanges.js"

/**
 * A component's `groupId` as a body gives it: null (ungrouped) or an existing group, locked until
 * the transaction ends so that a concurrent delete cannot leave the component pointing at nothing.
 * An unknown group is 404, as an unknown `componentId` is for a monitor.
 */
export const groupExists = (groups: ComponentGroupsRepo["Service"], groupId: string | null | undefined) =>
  groupId === undefined || groupId === null
    ? Effect.void
    : groups.findByIdForShare(groupId).pipe(orNotFound("Component group", groupId), Effect.asVoid)

export class ComponentGroups extends Context.Service<ComponentGroups>()("ComponentGroups", {
  make: Effect.gen(function*() {
    const repo = yield* ComponentGroupsRepo
    const changes = yield* StateChanges

    // Every write goes through StateChanges: the public summary and page show groups, which are
    // read with the components.
    return {
      list: Effect.fn("ComponentGroups.list")((page: PageRequest) => repo.findPage(page)),
      get: Effect.fn("ComponentGroups.get")((id: ComponentGroupId) =>
        repo.findById(id).pipe(orNotFound("Component group", id))
      ),
      create: Effect.fn("ComponentGroups.create")((input: CreateComponentGroup) =>
        changes.commit(Effect.andThen(touchesComponents, repo.insert(input)))
      ),
      /** A partial update; `{}` changes nothing, `updatedAt` included. */
      update: Effect.fn("ComponentGroups.update")((id: ComponentGroupId, update: UpdateComponentGroup) =>
        changes.commit(
          Effect.andThen(touchesComponents, repo.update(id, update)).pipe(orNotFound("Component group", id))
        )
      ),
      /** Its components are not deleted: they become ungrouped. */
      remove: Effect.fn("ComponentGroups.remove")((id: ComponentGroupId) =>
        changes.commit(Effect.andThen(touchesComponents, repo.remove(id))).pipe(
          Effect.filterOrFail((deleted) => deleted, () => NotFound.of("Component group", id)),
          Effect.asVoid
        )
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([ComponentGroupsRepo.layer, StateChanges.layer])
  )
}
