import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../api/Api.js"
import { PublicStatus } from "../services/PublicStatus.js"
import { Uptime } from "../services/Uptime.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.gen(function*() {
    const status = yield* PublicStatus
    const uptime = yield* Uptime
    return handlers
      .handle("summary", () => status.summary())
      .handle("components", () => status.components())
      .handle("uptime", ({ urlParams }) => uptime.read(urlParams.period ?? defaultUptimePeriod))
  }))
