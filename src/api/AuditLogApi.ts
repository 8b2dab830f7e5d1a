import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { AuditEntry, AuditFilterFields } from "../domain/Audit.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

export class AuditLogApi extends HttpApiGroup.make("auditLog")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: Schema.Struct({ ...pageQueryFields(adminPageBounds), ...AuditFilterFields }),
      success: Schema.Array(AuditEntry)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read the audit log",
        "Entries newest first: `at`, `actor` (`{ type: user | apiKey | system, id, name }`), `clientAddress`, " +
          "`operation` (the operationId of the write, such as `incidents.create`, or an automation's, such as " +
          "`incidents.openAutomatically`), `target` (`{ type, id, name }`) and `changes` (`{ field: { before, " +
          "after } }`; a secret shows as `\"(secret)\"`, never its value).",
        "Filters, all optional and combined: `actorType`, `actorId`, `operation`, `targetType`, `targetId`, " +
          "`since` and `until` (ISO 8601 UTC; `since` inclusive, `until` exclusive).",
        pagedList(adminPageBounds),
        "Entries cannot be changed or deleted through any interface; housekeeping deletes those older than " +
          "`AUDIT_RETENTION_DAYS` (365 by default)."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/audit-log")
  .annotateMerge(groupDocs(
    "Who changed what, and when (admin; an API key or a session is required, else 401).",
    "Every admin write appends one entry in the transaction of its change, as do sign-ins, failed sign-ins, an " +
      "API key's first use from a new address, and the automations acting on their own."
  ))
{}
