import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { CurrentPrincipal } from "../domain/Auth.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"

export const ApiKeysHttp = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("list", () => apiKeys.list())
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => apiKeys.create(payload, principal.userId)))
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => apiKeys.remove(path.id, principal)))
  }))
