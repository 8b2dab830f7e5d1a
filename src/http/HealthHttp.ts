import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Health } from "../api/HealthApi.js"
import { databaseUnavailable } from "../persistence/DatabaseErrors.js"
import { RetryingSqlClient } from "../persistence/RetryingSqlClient.js"

const ok = new Health({ status: "ok" })

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    return handlers
      .handle("live", () => Effect.succeed(ok))
      .handle("ready", () =>
        sql`select 1`.pipe(
          Effect.timeout("2 seconds"),
          Effect.as(ok),
          Effect.catch(() => Effect.fail(databaseUnavailable))
        ))
  }))
