import { Context, Effect, Layer } from "effect"

import type { ComponentId, ComponentStatus, CreateComponent, UpdateComponent } from "../domain/Component.js"
import { Component } from "../domain/Component.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf, updateById } from "./Rows.js"

/** Who is in charge of a component's status (`components.status_set_by`, migration 0010). */
export type StatusSetBy = "operator" | "monitors"

export class ComponentsRepo extends Context.Service<ComponentsRepo>()("ComponentsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const components = rowsOf(Component)

    return {
      findAll: () => components.all(sql`select * from components order by display_order, name, id`),

      findPublic: () => components.all(sql`select * from components where is_public order by display_order, name, id`),

      findById: (id: ComponentId) => components.first(sql`select * from components where id = ${id}`),

      /** Reads and locks the row until the transaction ends (status changes compare before and after). */
      findByIdForUpdate: (id: ComponentId) =>
        components.first(sql`select * from components where id = ${id} for update`),

      /**
       * Fills the defaults of CreateComponent; without a displayOrder the component goes last,
       * or ties for last once some component holds the largest integer (max + 1 would overflow).
       */
      insert: (input: CreateComponent) =>
        components.one(sql`
          insert into components (name, description, status, display_order, is_public, group_id)
          values (${input.name}, ${input.description ?? ""}, ${input.status ?? "operational"},
                  coalesce(${input.displayOrder ?? null}::integer,
                           (select least(coalesce(max(display_order)::bigint + 1, 0), 2147483647)::integer from components)),
                  ${input.isPublic ?? true}, ${input.groupId ?? null})
          returning *`),

      update: (id: ComponentId, changes: UpdateComponent) =>
        components.first(updateById(sql, "components", id, definedFields(changes))),

      /**
       * Sets a status in the name of `setBy`. The trigger of migration 0010 takes it from the
       * transaction's `status_page.actor`, set in the same statement (so it holds outside a
       * transaction too) and cleared after it, so that later writes of the transaction are not
       * the monitors' by mistake.
       */
      setStatus: (id: ComponentId, status: ComponentStatus, setBy: StatusSetBy = "operator") =>
        components.first(sql`
          with actor as materialized (select set_config('status_page.actor', ${setBy}, true))
          update components set status = ${status}, updated_at = now() from actor where id = ${id}
          returning components.*`).pipe(
          Effect.tap(orUnavailable(sql`select set_config('status_page.actor', '', true)`))
        ),

      /** True when a component was deleted. */
      /** Its monitors go with it; their open automatic incidents are handed over to the operators. */
      remove: (id: ComponentId) =>
        orUnavailable(sql`
          with handed_over as (update incidents set automation = 'handed_over'
                               where automation = 'active'
                                 and monitor_id in (select m.id from monitors m where m.component_id = ${id}))
          delete from components where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
