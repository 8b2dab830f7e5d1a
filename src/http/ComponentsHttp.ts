import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Components } from "../services/catalog/Components.js"

export const ComponentsHttp = HttpApiBuilder.group(Api, "components", (handlers) =>
  Effect.gen(function*() {
    const components = yield* Components
    return handlers
      .handle("list", () => components.list())
      .handle("create", ({ payload }) => components.create(payload))
      .handle("update", ({ params, payload }) => components.update(params.id, payload))
      .handle("remove", ({ params }) => components.remove(params.id))
      .handle("setStatus", ({ params, payload }) => components.setStatus(params.id, payload.status))
  }))
