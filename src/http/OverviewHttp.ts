import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Overview } from "../services/operations/Overview.js"

export const OverviewHttp = HttpApiBuilder.group(Api, "overview", (handlers) =>
  Effect.gen(function*() {
    const overview = yield* Overview
    return handlers.handle("get", () => overview.report())
  }))
