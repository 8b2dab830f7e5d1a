import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { ComponentGroups } from "../services/catalog/ComponentGroups.js"
import { answerPage } from "./PageLinks.js"

export const ComponentGroupsHttp = HttpApiBuilder.group(Api, "componentGroups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* ComponentGroups
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(groups.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => groups.get(params.id))
      .handle("create", ({ payload }) => groups.create(payload))
      .handle("update", ({ params, payload }) => groups.update(params.id, payload))
      .handle("remove", ({ params }) => groups.remove(params.id))
  }))
