import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../api/Api.js"
import { PublicStatus } from "../services/PublicStatus.js"

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.gen(function*() {
    const status = yield* PublicStatus
    return handlers
      .handle("summary", () => status.summary())
      .handle("components", () => status.components())
  }))
