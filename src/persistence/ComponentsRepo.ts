import { Context, Effect, Layer } from "effect"

import type { ComponentId, CreateComponent, UpdateComponent } from "../domain/Component.js"
import { Component } from "../domain/Component.js"
import type { PageRequest } from "../domain/Page.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf, updateById } from "./Rows.js"

/** Components in display order, then name. */
const componentsInOrder: Keyset = {
  list: "components",
  keys: [{ sql: "display_order", type: "integer" }, { sql: "name", type: "text" }, { sql: "id", type: "text" }]
}

export class ComponentsRepo extends Context.Service<ComponentsRepo>()("ComponentsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const components = rowsOf(Component)
    /** The public components in display order: one clause, so that the ids and the rows agree. */
    const publicInOrder = sql.literal("from components where is_public order by display_order, name, id")

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          componentsInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from components where ${p.after} ${p.orderBy} ${p.limit}`,
          components.all
        ),

      findPublic: () => components.all(sql`select * ${publicInOrder}`),

      /** The public components' ids in the order `findPublic` reads them: where a component read again by id goes. */
      findPublicIds: () =>
        orUnavailable(Effect.map(
          sql<{ readonly id: ComponentId }>`select id ${publicInOrder}`,
          (rows) => rows.map((row) => row.id)
        )),

      /** Those of these components that are public. */
      findPublicByIds: (ids: ReadonlyArray<string>) =>
        components.all(sql`select * from components where is_public and id = any(${[...ids]}::text[])`),

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
       * Deletes the component and returns it as it was (none when there was none). Its monitors go
       * with it; their open automatic incidents are handed over to the operators.
       */
      remove: (id: ComponentId) =>
        components.first(sql`
          with handed_over as (update incidents set automation = 'handed_over'
                               where automation = 'active'
                                 and monitor_id in (select m.id from monitors m where m.component_id = ${id}))
          delete from components where id = ${id} returning *`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
