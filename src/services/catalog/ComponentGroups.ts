/** Component groups: the headings the public page shows components under. */
import { Context, Effect, Layer } from "effect"

import type {
  ComponentGroup,
  ComponentGroupId,
  CreateComponentGroup,
  UpdateComponentGroup
} from "../../domain/ComponentGroup.js"
import { orNotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
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
    const audit = yield* AuditTrail

    /** The audit entry of a change of `group` from `before` to `after`. */
    const record = (group: ComponentGroup, before: ComponentGroup | undefined, after: ComponentGroup | undefined) =>
      audit.record({
        target: { type: "componentGroup", id: group.id, name: group.name },
        changes: changesBetween(before, after)
      })

    // Every write goes through StateChanges: the public summary and page show groups, which are
    // read with the components.
    return {
      list: Effect.fn("ComponentGroups.list")((page: PageRequest) => repo.findPage(page)),
      get: Effect.fn("ComponentGroups.get")((id: ComponentGroupId) =>
        repo.findById(id).pipe(orNotFound("Component group", id))
      ),
      create: Effect.fn("ComponentGroups.create")((input: CreateComponentGroup) =>
        changes.commit(Effect.gen(function*() {
          yield* touchesComponents
          const created = yield* repo.insert(input)
          yield* record(created, undefined, created)
          return created
        }))
      ),
      /** A partial update; `{}` changes nothing, `updatedAt` included. */
      update: Effect.fn("ComponentGroups.update")((id: ComponentGroupId, update: UpdateComponentGroup) =>
        changes.commit(Effect.gen(function*() {
          yield* touchesComponents
          const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Component group", id))
          const after = yield* repo.update(id, update).pipe(orNotFound("Component group", id))
          yield* record(after, before, after)
          return after
        }))
      ),
      /** Its components are not deleted: they become ungrouped. */
      remove: Effect.fn("ComponentGroups.remove")((id: ComponentGroupId) =>
        changes.commit(Effect.gen(function*() {
          yield* touchesComponents
          const removed = yield* repo.remove(id).pipe(orNotFound("Component group", id))
          yield* record(removed, removed, undefined)
        }))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([ComponentGroupsRepo.layer, StateChanges.layer, AuditTrail.layer])
  )
}
