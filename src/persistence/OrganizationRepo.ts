import { Context, Effect, Layer } from "effect"

import type { OrganizationId, UpdateOrganization } from "../domain/Organization.js"
import { Organization } from "../domain/Organization.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf, updateById } from "./Rows.js"

/** The profile a new deployment starts with; the operator edits it with PUT /admin/org/:id. */
const defaultProfile = { name: "Status", brandColor: "#2563eb", timezone: "UTC" }

export class OrganizationRepo extends Context.Service<OrganizationRepo>()("OrganizationRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const organizations = rowsOf(Organization)

    return {
      /** Creates the deployment's organization unless it exists (the singleton column settles races). */
      ensureExists: () =>
        orUnavailable(sql`
          insert into organizations (name, brand_color, timezone)
          values (${defaultProfile.name}, ${defaultProfile.brandColor}, ${defaultProfile.timezone})
          on conflict (singleton) do nothing`),

      find: () => organizations.first(sql`select * from organizations limit 1`),

      /** Reads and locks the row until the transaction ends (an update compares before and after). */
      findByIdForUpdate: (id: OrganizationId) =>
        organizations.first(sql`select * from organizations where id = ${id} for update`),

      update: (id: OrganizationId, changes: UpdateOrganization) =>
        organizations.first(updateById(sql, "organizations", id, definedFields(changes)))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
