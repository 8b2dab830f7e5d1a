import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { Components } from "../services/catalog/Components.js"
import { answerPage } from "./PageLinks.js"

export const ComponentsHttp = HttpApiBuilder.group(Api, "components", (handlers) =>
  Effect.gen(function*() {
    const components = yield* Components
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(components.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => components.get(params.id))
      .handle("create", ({ payload }) => components.create(payload))
      .handle("update", ({ params, payload }) => components.update(params.id, payload))
      .handle("remove", ({ params }) => components.remove(params.id))
      .handle("setStatus", ({ params, payload }) => components.setStatus(params.id, payload.status))
  }))
