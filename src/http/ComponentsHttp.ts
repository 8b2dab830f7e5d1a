import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { Components } from "../services/catalog/Components.js"

export const ComponentsHttp = HttpApiBuilder.group(Api, "components", (handlers) =>
  Effect.gen(function*() {
    const components = yield* Components
    return handlers
      .handle("list", () => components.list())
      .handle("create", ({ payload }) => components.create(payload))
      .handle("update", ({ path, payload }) => components.update(path.id, payload))
      .handle("remove", ({ path }) => components.remove(path.id))
      .handle("setStatus", ({ path, payload }) => components.setStatus(path.id, payload.status))
  }))
