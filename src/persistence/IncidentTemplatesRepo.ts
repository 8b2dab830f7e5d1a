import { Context, Effect, Layer } from "effect"
import type { SqlError } from "effect/sql"

import type { ComponentId } from "../domain/Component.js"
import { Conflict } from "../domain/Errors.js"
import type { IncidentTemplateId } from "../domain/Incident.js"
import type { CreateIncidentTemplate, UpdateIncidentTemplate } from "../domain/IncidentTemplate.js"
import { IncidentTemplate } from "../domain/IncidentTemplate.js"
import type { PageRequest } from "../domain/Page.js"
import { componentIdsColumn, replaceComponents } from "./ComponentLinks.js"
import { orUnavailable, sqlState } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf } from "./Rows.js"

/** A name another template has (the unique index on `lower(name)`, SQLSTATE 23505) is a 409. */
const nameTaken = (name: string | undefined) => <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.catchIf(
    effect,
    (error) => sqlState(error) === "23505",
    () => Effect.fail(new Conflict({ message: `An incident template named ${JSON.stringify(name)} already exists` }))
  )

/** Templates by name, whatever its case. */
const templatesInOrder: Keyset = {
  list: "incident-templates",
  keys: [{ sql: "lower(name)", type: "text" }, { sql: "id", type: "text" }]
}

export class IncidentTemplatesRepo extends Context.Service<IncidentTemplatesRepo>()("IncidentTemplatesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const templates = rowsOf(IncidentTemplate)

    const withComponents = sql.literal(`
      select t.*, ${componentIdsColumn("template", "t")}
      from incident_templates t`)

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          templatesInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from (${withComponents}) t where ${p.after} ${p.orderBy} ${p.limit}`,
          templates.all
        ),

      findById: (id: IncidentTemplateId) => templates.first(sql`${withComponents} where t.id = ${id}`),

      /**
       * Fills the defaults of CreateIncidentTemplate; the components are set apart (`setComponents`),
       * and the visibility, private until then, by Visibility.
       */
      insert: (input: CreateIncidentTemplate) =>
        orUnavailable(
          sql<{ id: IncidentTemplateId }>`
            insert into incident_templates (name, title, message, severity, status, is_public)
            values (${input.name}, ${input.title}, ${input.message}, ${input.severity ?? "minor"},
                    ${input.status ?? "investigating"}, false)
            returning id`.pipe(nameTaken(input.name))
        ).pipe(Effect.map((rows) => rows[0]!.id)),

      /** Sets the defined fields and `updated_at`; false when there is no such template. */
      update: (id: IncidentTemplateId, changes: Omit<UpdateIncidentTemplate, "componentIds">) => {
        const fields = definedFields(changes)
        const statement = Object.keys(fields).length === 0
          ? sql`update incident_templates set updated_at = now() where id = ${id} returning id`
          : sql`update incident_templates set ${sql.update(fields)}, updated_at = now() where id = ${id} returning id`
        return orUnavailable(statement.pipe(nameTaken(changes.name))).pipe(Effect.map((rows) => rows.length > 0))
      },

      /** Names the template's components; its visibility is Visibility's. */
      setComponents: (id: IncidentTemplateId, componentIds: ReadonlyArray<ComponentId>) =>
        replaceComponents(sql, "template", id, componentIds),

      /** True when a template was deleted. */
      remove: (id: IncidentTemplateId) =>
        orUnavailable(sql`delete from incident_templates where id = ${id} returning id`).pipe(
          Effect.map((rows) => rows.length > 0)
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
