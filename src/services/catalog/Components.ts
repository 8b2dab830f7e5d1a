import { Context, Effect, Layer } from "effect"

import type {
  Component,
  ComponentId,
  ComponentStatus,
  CreateComponent,
  UpdateComponent
} from "../../domain/Component.js"
import { orNotFound } from "../../domain/Errors.js"
import type { PageRequest } from "../../domain/Page.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { Visibility } from "../../persistence/Visibility.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { StateChanges, touch, touchedEverything, touchesComponentsById } from "../StateChanges.js"
import { groupExists } from "./ComponentGroups.js"
import { ComponentStatuses } from "./ComponentStatuses.js"

export class Components extends Context.Service<Components>()("Components", {
  make: Effect.gen(function*() {
    const repo = yield* ComponentsRepo
    const groups = yield* ComponentGroupsRepo
    const visibility = yield* Visibility
    const statuses = yield* ComponentStatuses
    const changes = yield* StateChanges
    const audit = yield* AuditTrail

    /** The audit entry of a change of `component` from `before` to `after`. */
    const record = (component: Component, before: Component | undefined, after: Component | undefined) =>
      audit.record({
        target: { type: "component", id: component.id, name: component.name },
        changes: changesBetween(before, after)
      })

    /**
     * Updates a locked component; a status in the update goes through its one writer
     * (ComponentStatuses), in the same transaction. Showing or hiding the component decides again
     * the visibility of the incidents, windows and templates naming it, which touches everything
     * the public sees.
     */
    const write = (id: ComponentId, { status, ...fields }: UpdateComponent) =>
      changes.commit(Effect.gen(function*() {
        const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Component", id))
        yield* groupExists(groups, fields.groupId)
        const updated = yield* repo.update(id, fields).pipe(orNotFound("Component", id))
        const after = status === undefined ? updated : yield* statuses.setByOperator(id, status)
        const shownOrHidden = before.isPublic !== after.isPublic
        yield* shownOrHidden ? touch(touchedEverything) : touchesComponentsById([id])
        if (shownOrHidden) yield* visibility.componentShownOrHidden(id)
        yield* record(after, before, after)
        return after
      }))

    return {
      list: Effect.fn("Components.list")((page: PageRequest) => repo.findPage(page)),
      listPublic: Effect.fn("Components.listPublic")(() => repo.findPublic()),
      get: Effect.fn("Components.get")((id: ComponentId) => repo.findById(id).pipe(orNotFound("Component", id))),
      create: Effect.fn("Components.create")((input: CreateComponent) =>
        changes.commit(Effect.gen(function*() {
          yield* groupExists(groups, input.groupId)
          const created = yield* repo.insert(input)
          yield* touchesComponentsById([created.id])
          yield* record(created, undefined, created)
          return created
        }))
      ),
      update: Effect.fn("Components.update")((id: ComponentId, update: UpdateComponent) => write(id, update)),
      setStatus: Effect.fn("Components.setStatus")((id: ComponentId, status: ComponentStatus) =>
        changes.commit(Effect.gen(function*() {
          yield* touchesComponentsById([id])
          const before = yield* repo.findByIdForUpdate(id).pipe(orNotFound("Component", id))
          const after = yield* statuses.setByOperator(id, status)
          yield* record(after, before, after)
          return after
        }))
      ),
      /**
       * Its incidents and windows keep their visibility: what was private stays private. They no
       * longer name it: that touches everything.
       */
      remove: Effect.fn("Components.remove")((id: ComponentId) =>
        changes.commit(Effect.gen(function*() {
          const removed = yield* repo.remove(id).pipe(orNotFound("Component", id))
          yield* record(removed, removed, undefined)
        }))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      ComponentsRepo.layer,
      ComponentGroupsRepo.layer,
      Visibility.layer,
      ComponentStatuses.layer,
      StateChanges.layer,
      AuditTrail.layer
    ])
  )
}
