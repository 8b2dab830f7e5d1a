import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { CurrentPrincipal } from "../domain/Auth.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { answerPage } from "./PageLinks.js"

export const ApiKeysHttp = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(apiKeys.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => apiKeys.create(payload, principal)))
      .handle("remove", ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          apiKeys.remove(params.id, principal)))
  }))
