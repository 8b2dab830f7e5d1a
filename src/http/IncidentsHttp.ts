import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { Incidents } from "../services/catalog/Incidents.js"
import { answerPage } from "./PageLinks.js"

export const IncidentsHttp = HttpApiBuilder.group(Api, "incidents", (handlers) =>
  Effect.gen(function*() {
    const incidents = yield* Incidents
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(incidents.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("create", ({ payload }) => incidents.create(payload))
      .handle("get", ({ params }) => incidents.get(params.id))
      .handle("update", ({ params, payload }) => incidents.update(params.id, payload))
      .handle("addUpdate", ({ params, payload }) => incidents.addUpdate(params.id, payload))
      .handle("resolve", ({ params, payload }) => incidents.resolve(params.id, payload ?? {}))
      .handle("publish", ({ params }) => incidents.publish(params.id))
      .handle("setPostmortem", ({ params, payload }) => incidents.setPostmortem(params.id, payload))
  }))
