import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { Incidents } from "../services/catalog/Incidents.js"

export const IncidentsHttp = HttpApiBuilder.group(Api, "incidents", (handlers) =>
  Effect.gen(function*() {
    const incidents = yield* Incidents
    return handlers
      .handle("list", () => incidents.list())
      .handle("create", ({ payload }) => incidents.create(payload))
      .handle("get", ({ path }) => incidents.get(path.id))
      .handle("update", ({ path, payload }) => incidents.update(path.id, payload))
      .handle("addUpdate", ({ path, payload }) => incidents.addUpdate(path.id, payload))
      .handle("resolve", ({ path, payload }) => incidents.resolve(path.id, payload ?? {}))
      .handle("publish", ({ path }) => incidents.publish(path.id))
      .handle("setPostmortem", ({ path, payload }) => incidents.setPostmortem(path.id, payload))
  }))
