import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { NotFound } from "../domain/Errors.js"
import { Organization, OrganizationId, UpdateOrganization } from "../domain/Organization.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export class OrganizationApi extends HttpApiGroup.make("organization")
  .add(
    HttpApiEndpoint.get("get", "/", { success: Organization.json })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read the organization",
        "The deployment's one organization: `name`, `logoUrl`, `brandColor`, `timezone` and " +
          "`maintenanceReminderHours`."
      ))
  )
  .add(
    HttpApiEndpoint.put("updateCurrent", "/", { payload: UpdateOrganization, success: Organization.json })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Update the organization",
        "A partial update of the one organization, at the address it is read from; the same rules as " +
          "`PUT /api/v1/admin/org/{id}`, which stays for clients that use it."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: Schema.Struct({ id: OrganizationId }),
      payload: UpdateOrganization,
      success: Organization.json,
      error: NotFound
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Update the organization by id",
        "A partial update. `name` 1–200 characters; `brandColor` `#rrggbb`; `timezone` an IANA name as IANA " +
          "writes it (`Europe/Paris`, `UTC`; not `europe/paris` or an offset); `logoUrl` an absolute http(s) " +
          "URL, or `null` to remove the logo; `maintenanceReminderHours` a whole number 0–720 (0: no reminders). " +
          "Another id than the organization's is 404.",
        "The name titles the public feeds and the status page; the page shows times in `timezone`. Subscribers " +
          "and webhooks get a `maintenance.reminder` that many hours before a scheduled window starts."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/org")
  .annotateMerge(groupDocs(
    "The organization behind the status page, one per deployment (admin; an API key or a session is " +
      "required, else 401). It is created on first start with the name `Status`, brand colour `#2563eb`, " +
      "time zone `UTC` and maintenance reminders 24 hours ahead."
  ))
{}
