import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { ProbeRegistry } from "../services/monitoring/ProbeRegistry.js"

export const ProbesHttp = HttpApiBuilder.group(Api, "probes", (handlers) =>
  Effect.gen(function*() {
    const registry = yield* ProbeRegistry
    return handlers.handle("list", () => registry.list())
  }))
