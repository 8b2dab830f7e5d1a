import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { ComponentGroups } from "../services/catalog/ComponentGroups.js"

export const ComponentGroupsHttp = HttpApiBuilder.group(Api, "componentGroups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* ComponentGroups
    return handlers
      .handle("list", () => groups.list())
      .handle("create", ({ payload }) => groups.create(payload))
      .handle("update", ({ params, payload }) => groups.update(params.id, payload))
      .handle("remove", ({ params }) => groups.remove(params.id))
  }))
