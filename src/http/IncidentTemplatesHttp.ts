import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

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
        .handle("update", ({ path, payload }) => templates.update(path.id, payload))
        .handle("remove", ({ path }) => templates.remove(path.id))
    })
)
