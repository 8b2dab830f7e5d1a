import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { ComponentGroups } from "../services/catalog/ComponentGroups.js"

export const ComponentGroupsHttp = HttpApiBuilder.group(Api, "componentGroups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* ComponentGroups
    return handlers
      .handle("list", () => groups.list())
      .handle("create", ({ payload }) => groups.create(payload))
      .handle("update", ({ path, payload }) => groups.update(path.id, payload))
      .handle("remove", ({ path }) => groups.remove(path.id))
  }))
