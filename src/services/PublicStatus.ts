import { Effect } from "effect"
import { PublicComponent, worstStatus } from "../domain/Component.js"
import { StatusSummary } from "../domain/Status.js"
import { ComponentsRepo } from "../persistence/ComponentsRepo.js"

/** What the public reads: public components only, and the overall status derived from them. */
export class PublicStatus extends Effect.Service<PublicStatus>()("PublicStatus", {
  effect: Effect.gen(function*() {
    const components = yield* ComponentsRepo

    const publicComponents = components.findPublic().pipe(
      Effect.map((rows) =>
        rows.map((row) =>
          new PublicComponent({
            id: row.id,
            name: row.name,
            description: row.description,
            status: row.status,
            displayOrder: row.displayOrder
          })
        )
      )
    )

    return {
      components: () => publicComponents,
      summary: () =>
        publicComponents.pipe(
          Effect.map((list) =>
            new StatusSummary({
              status: worstStatus(list.map((component) => component.status)),
              components: list,
              activeIncidents: [],
              upcomingMaintenance: []
            })
          )
        )
    } as const
  }),
  dependencies: [ComponentsRepo.Default]
}) {}
