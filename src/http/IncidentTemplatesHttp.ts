import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { IncidentTemplates } from "../services/catalog/IncidentTemplates.js"
import { answerPage } from "./PageLinks.js"

export const IncidentTemplatesHttp = HttpApiBuilder.group(
  Api,
  "incidentTemplates",
  (handlers) =>
    Effect.gen(function*() {
      const templates = yield* IncidentTemplates
      return handlers
        .handle("list", ({ query }) => Effect.flatMap(templates.list(pageRequest(query, adminPageBounds)), answerPage))
        .handle("get", ({ params }) => templates.get(params.id))
        .handle("create", ({ payload }) => templates.create(payload))
        .handle("update", ({ params, payload }) => templates.update(params.id, payload))
        .handle("remove", ({ params }) => templates.remove(params.id))
    })
)
