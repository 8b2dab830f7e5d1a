/** GET /api/v1/admin/audit-log: the entries newest first, filtered as the query says, in cursor pages. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { AuditTrail } from "../services/audit/AuditTrail.js"
import { answerPage } from "./PageLinks.js"

export const AuditLogHttp = HttpApiBuilder.group(Api, "auditLog", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditTrail
    return handlers.handle("list", ({ query: { cursor, limit, ...filter } }) =>
      Effect.flatMap(audit.list(filter, pageRequest({ cursor, limit }, adminPageBounds)), answerPage))
  }))
