import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { Monitors } from "../services/monitoring/Monitors.js"

export const MonitorsHttp = HttpApiBuilder.group(Api, "monitors", (handlers) =>
  Effect.gen(function*() {
    const monitors = yield* Monitors
    return handlers
      .handle("list", () => monitors.list())
      .handle("create", ({ payload }) => monitors.create(payload))
      .handle("update", ({ path, payload }) => monitors.update(path.id, payload))
      .handle("results", ({ path, urlParams }) => monitors.results(path.id, urlParams.limit ?? 100))
      .handle("pause", ({ path }) => monitors.setPaused(path.id, true))
      .handle("resume", ({ path }) => monitors.setPaused(path.id, false))
      .handle("remove", ({ path }) => monitors.remove(path.id))
  }))
