import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"
import { answerPage } from "./PageLinks.js"

export const MaintenanceHttp = HttpApiBuilder.group(Api, "maintenance", (handlers) =>
  Effect.gen(function*() {
    const windows = yield* MaintenanceWindows
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(windows.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("create", ({ payload }) => windows.create(payload))
      .handle("get", ({ params }) => windows.get(params.id))
      .handle("update", ({ params, payload }) => windows.update(params.id, payload))
      .handle("cancel", ({ params, query }) => windows.cancel(params.id, { series: query.series }))
  }))
