import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { ProbeRegistry } from "../services/monitoring/ProbeRegistry.js"
import { answerPage } from "./PageLinks.js"

export const ProbesHttp = HttpApiBuilder.group(Api, "probes", (handlers) =>
  Effect.gen(function*() {
    const registry = yield* ProbeRegistry
    return handlers.handle("list", ({ query }) =>
      Effect.flatMap(registry.listPage(pageRequest(query, adminPageBounds)), answerPage))
  }))
