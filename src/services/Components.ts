import { Effect } from "effect"
import type { ComponentId, ComponentStatus, CreateComponent, UpdateComponent } from "../domain/Component.js"
import { NotFound, orNotFound } from "../domain/Errors.js"
import { ComponentsRepo } from "../persistence/ComponentsRepo.js"

export class Components extends Effect.Service<Components>()("Components", {
  effect: Effect.gen(function*() {
    const repo = yield* ComponentsRepo
    return {
      list: repo.findAll,
      listPublic: repo.findPublic,
      get: (id: ComponentId) => repo.findById(id).pipe(orNotFound("Component", id)),
      create: (input: CreateComponent) => repo.insert(input),
      update: (id: ComponentId, changes: UpdateComponent) => repo.update(id, changes).pipe(orNotFound("Component", id)),
      setStatus: (id: ComponentId, status: ComponentStatus) =>
        repo.setStatus(id, status).pipe(orNotFound("Component", id)),
      remove: (id: ComponentId) =>
        repo.remove(id).pipe(
          Effect.filterOrFail((deleted) => deleted, () => NotFound.of("Component", id)),
          Effect.asVoid
        )
    } as const
  }),
  dependencies: [ComponentsRepo.Default]
}) {}
