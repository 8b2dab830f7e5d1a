import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { runsPageBounds } from "../domain/Monitor.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { Monitors } from "../services/monitoring/Monitors.js"
import { answerPage } from "./PageLinks.js"

export const MonitorsHttp = HttpApiBuilder.group(Api, "monitors", (handlers) =>
  Effect.gen(function*() {
    const monitors = yield* Monitors
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(monitors.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => monitors.get(params.id))
      .handle("create", ({ payload }) => monitors.create(payload))
      .handle("update", ({ params, payload }) => monitors.update(params.id, payload))
      .handle("results", ({ params, query }) =>
        Effect.flatMap(monitors.results(params.id, pageRequest(query, runsPageBounds)), answerPage))
      .handle("pause", ({ params }) =>
        monitors.setPaused(params.id, true))
      .handle("resume", ({ params }) => monitors.setPaused(params.id, false))
      .handle("rotatePushToken", ({ params }) => monitors.rotatePushToken(params.id))
      .handle("remove", ({ params }) => monitors.remove(params.id))
  }))
