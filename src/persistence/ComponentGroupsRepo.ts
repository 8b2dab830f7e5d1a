import { Context, Effect, Layer } from "effect"

import type { ComponentGroupId, CreateComponentGroup, UpdateComponentGroup } from "../domain/ComponentGroup.js"
import { ComponentGroup } from "../domain/ComponentGroup.js"
import type { PageRequest } from "../domain/Page.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf, updateById } from "./Rows.js"

/** Groups in display order, then name. */
const groupsInOrder: Keyset = {
  list: "component-groups",
  keys: [{ sql: "display_order", type: "integer" }, { sql: "name", type: "text" }, { sql: "id", type: "text" }]
}

export class ComponentGroupsRepo extends Context.Service<ComponentGroupsRepo>()("ComponentGroupsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const groups = rowsOf(ComponentGroup)

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          groupsInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from component_groups where ${p.after} ${p.orderBy} ${p.limit}`,
          groups.all
        ),

      findPublic: () =>
        groups.all(sql`select * from component_groups where is_public order by display_order, name, id`),

      findById: (id: ComponentGroupId) => groups.first(sql`select * from component_groups where id = ${id}`),

      /**
       * Reads and locks the row against a concurrent delete until the transaction ends, so a
       * component assigned to it never points at a group that is gone.
       */
      findByIdForShare: (id: string) => groups.first(sql`select * from component_groups where id = ${id} for share`),

      /** Fills the defaults of CreateComponentGroup; without a displayOrder the group goes last (as components do). */
      insert: (input: CreateComponentGroup) =>
        groups.one(sql`
          insert into component_groups (name, description, display_order, is_public)
          values (${input.name}, ${input.description ?? ""},
                  coalesce(${input.displayOrder ?? null}::integer,
                           (select least(coalesce(max(display_order)::bigint + 1, 0), 2147483647)::integer
                            from component_groups)),
                  ${input.isPublic ?? true})
          returning *`),

      /** Reads and locks the row until the transaction ends (an update compares before and after). */
      findByIdForUpdate: (id: ComponentGroupId) =>
        groups.first(sql`select * from component_groups where id = ${id} for update`),

      update: (id: ComponentGroupId, changes: UpdateComponentGroup) =>
        groups.first(updateById(sql, "component_groups", id, definedFields(changes))),

      /** Deletes the group and returns it as it was; its components become ungrouped (`on delete set null`). */
      remove: (id: ComponentGroupId) => groups.first(sql`delete from component_groups where id = ${id} returning *`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
