import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { StatusPages } from "../services/catalog/StatusPages.js"
import { answerPage } from "./PageLinks.js"

export const StatusPagesHttp = HttpApiBuilder.group(Api, "statusPages", (handlers) =>
  Effect.gen(function*() {
    const pages = yield* StatusPages
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(pages.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => pages.get(params.id))
      .handle("create", ({ payload }) => pages.create(payload))
      .handle("update", ({ params, payload }) => pages.update(params.id, payload))
      .handle("remove", ({ params }) => pages.remove(params.id))
  }))
