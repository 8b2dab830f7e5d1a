import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { IncidentTemplates } from "../services/catalog/IncidentTemplates.js"

export const IncidentTemplatesHttp = HttpApiBuilder.group(
  Api,
  "incidentTemplates",
  (handlers) =>
    Effect.gen(function*() {
      const templates = yield* IncidentTemplates
      return handlers
        .handle("list", () => templates.list())
        .handle("create", ({ payload }) => templates.create(payload))
        .handle("update", ({ params, payload }) => templates.update(params.id, payload))
        .handle("remove", ({ params }) => templates.remove(params.id))
    })
)
