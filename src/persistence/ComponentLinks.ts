/**
 * Items linked to components: incidents, maintenance windows and incident templates each name
 * their components in a link table of their own. Reading an item's component ids and replacing
 * them are the same for the three; their repositories take them from here, and Visibility
 * (which decides an item's visibility from these links) the description of the tables.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

import type { ComponentId } from "../domain/Component.js"
import { orUnavailable } from "./DatabaseErrors.js"

/** Each kind of item: where its choice is kept, and the table naming its components. */
export const linkedItems = {
  incident: { table: "incidents", choice: "chosen_public", links: "incident_components", key: "incident_id" },
  maintenance: {
    table: "maintenance_windows",
    choice: "is_public",
    links: "maintenance_components",
    key: "maintenance_id"
  },
  template: {
    table: "incident_templates",
    choice: "is_public",
    links: "incident_template_components",
    key: "template_id"
  }
} as const

export type LinkedItem = keyof typeof linkedItems

/**
 * The `component_ids` column of a select from the `kind` table bound as `item`: the ids of the
 * components it names, in id order (empty when none).
 */
export const componentIdsColumn = (kind: LinkedItem, item: string) => {
  const { key, links } = linkedItems[kind]
  return `coalesce((select array_agg(l.component_id order by l.component_id)
                  from ${links} l where l.${key} = ${item}.id), '{}') as component_ids`
}

/** As `componentIdsColumn`, naming only the public components: what the public sees of an item. */
export const publicComponentIdsColumn = (kind: LinkedItem, item: string) => {
  const { key, links } = linkedItems[kind]
  return `coalesce((select array_agg(l.component_id order by l.component_id)
                  from ${links} l join components c on c.id = l.component_id
                  where l.${key} = ${item}.id and c.is_public), '{}') as component_ids`
}

/**
 * Of `ids`, the components that still exist, locked (`for key share`, in id order) until the
 * transaction ends: what an item's list of components is written from, so that a component
 * deleted while a change re-wrote the list it had read is left out instead of failing the
 * foreign key (a 500).
 */
const stillExisting = (sql: SqlClient.SqlClient, ids: ReadonlyArray<ComponentId>) =>
  sql`select c.id from components c where c.id = any(${[...ids]}::text[]) order by c.id for key share`

/** Names the item's components, replacing those it named; its visibility is Visibility's. */
export const replaceComponents = (
  sql: SqlClient.SqlClient,
  kind: LinkedItem,
  id: string,
  componentIds: ReadonlyArray<ComponentId>
) => {
  const { key, links } = linkedItems[kind]
  return orUnavailable(Effect.all([
    sql`delete from ${sql(links)} where ${sql(key)} = ${id}`,
    sql`insert into ${sql(links)} (${sql(key)}, component_id) select ${id}, c.id from (${
      stillExisting(sql, componentIds)
    }) c`
  ], { discard: true }))
}
