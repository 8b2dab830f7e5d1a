import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Health } from "../api/HealthApi.js"
import { databaseUnavailable } from "../persistence/DatabaseErrors.js"
import { DatabaseHealth } from "../persistence/DatabaseHealth.js"

const ok = new Health({ status: "ok" })

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const database = yield* DatabaseHealth
    return handlers
      .handle("live", () => Effect.succeed(ok))
      .handle("ready", () =>
        database.ping.pipe(
          Effect.timeout("2 seconds"),
          Effect.as(ok),
          Effect.catch(() => Effect.fail(databaseUnavailable))
        ))
  })).pipe(Layer.provide(DatabaseHealth.layer))
