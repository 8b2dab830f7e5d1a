/**
 * The one writer of the visibility of incidents, maintenance windows and incident templates
 * (docs/api.md, "Public visibility"). Visibility is the operator's choice, stored with the item;
 * it changes only by the acts below, never because something else was deleted, copied or
 * updated. (Nothing else writes these columns: an incident's `is_public` cannot even be written,
 * it follows from `chosen_public` and `published`.) The items, and the tables linking them to
 * their components, are described in ComponentLinks.ts.
 */
import { Context, Effect, Layer } from "effect"
import type { Statement } from "effect/sql"

import type { ComponentId } from "../domain/Component.js"
import type { LinkedItem } from "./ComponentLinks.js"
import { linkedItems } from "./ComponentLinks.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

export class Visibility extends Context.Service<Visibility>()("Visibility", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    /** Whether `ids` name a public component (ids of deleted components name none). */
    const namesPublic = (ids: ReadonlyArray<ComponentId>) =>
      sql`exists (select from components c where c.id = any(${[...ids]}::text[]) and c.is_public)`
    const write = (kind: LinkedItem, id: string, value: Statement.Fragment) => {
      const item = linkedItems[kind]
      return orUnavailable(sql`update ${sql(item.table)} set ${sql(item.choice)} = ${value} where id = ${id}`)
    }

    return {
      /**
       * An operator names the item's components, creating it or replacing its list: public when
       * they are none or include a public one.
       */
      choose: (kind: LinkedItem, id: string, named: ReadonlyArray<ComponentId>) =>
        write(kind, id, sql`(${named.length === 0} or ${namesPublic(named)})`),

      /**
       * An update names the item's components: decided again only when they are not the ones it
       * named (a form sending them back unchanged chooses nothing).
       */
      chooseAgain: (
        kind: LinkedItem,
        id: string,
        named: ReadonlyArray<ComponentId>,
        before: ReadonlyArray<ComponentId>
      ) => {
        const same = new Set(named).size === new Set(before).size && before.every((c) => named.includes(c))
        return same ? Effect.void : write(kind, id, sql`(${named.length === 0} or ${namesPublic(named)})`)
      },

      /** An operator names more components: a public one makes the item public; none makes it private. */
      widen: (kind: LinkedItem, id: string, added: ReadonlyArray<ComponentId>) =>
        added.length === 0
          ? Effect.void
          : write(kind, id, sql`(${sql(linkedItems[kind].choice)} or ${namesPublic(added)})`),

      /** An operator's explicit `isPublic`. */
      set: (kind: LinkedItem, id: string, isPublic: boolean) => write(kind, id, sql`${isPublic}`),

      /**
       * The item takes the choice of `from`: the occurrence it follows, the template it comes
       * from. Read here, after the caller locked the components it names, so a component hidden
       * meanwhile has had its say on `from` first.
       */
      inherit: (kind: LinkedItem, id: string, from: { readonly kind: LinkedItem; readonly id: string }) =>
        write(
          kind,
          id,
          // Private when `from` is gone meanwhile.
          sql`coalesce((select ${sql(linkedItems[from.kind].choice)} from ${
            sql(linkedItems[from.kind].table)
          } where id = ${from.id}), false)`
        ),

      /**
       * An operator showed or hid a component: every item naming it is public when one of its
       * components is, else private.
       */
      componentShownOrHidden: (componentId: ComponentId) =>
        Effect.forEach(Object.values(linkedItems), (item) =>
          orUnavailable(sql`
            update ${sql(item.table)} t
            set ${sql(item.choice)} = exists (
              select from ${sql(item.links)} l join components c on c.id = l.component_id
              where l.${sql(item.key)} = t.id and c.is_public)
            where t.id in (select ${sql(item.key)} from ${sql(item.links)} where component_id = ${componentId})`), {
          discard: true
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
