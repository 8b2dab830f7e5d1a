import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Monitors } from "../services/monitoring/Monitors.js"

export const MonitorsHttp = HttpApiBuilder.group(Api, "monitors", (handlers) =>
  Effect.gen(function*() {
    const monitors = yield* Monitors
    return handlers
      .handle("list", () => monitors.list())
      .handle("create", ({ payload }) => monitors.create(payload))
      .handle("update", ({ params, payload }) => monitors.update(params.id, payload))
      .handle("results", ({ params, query }) => monitors.results(params.id, query.limit ?? 100))
      .handle("pause", ({ params }) => monitors.setPaused(params.id, true))
      .handle("resume", ({ params }) => monitors.setPaused(params.id, false))
      .handle("remove", ({ params }) => monitors.remove(params.id))
  }))
