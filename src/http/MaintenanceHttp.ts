import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"

export const MaintenanceHttp = HttpApiBuilder.group(Api, "maintenance", (handlers) =>
  Effect.gen(function*() {
    const windows = yield* MaintenanceWindows
    return handlers
      .handle("list", () => windows.list())
      .handle("create", ({ payload }) => windows.create(payload))
      .handle("get", ({ path }) => windows.get(path.id))
      .handle("update", ({ path, payload }) => windows.update(path.id, payload))
      .handle("cancel", ({ path, urlParams }) => windows.cancel(path.id, { series: urlParams.series }))
  }))
