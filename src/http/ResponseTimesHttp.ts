import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { defaultResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"

export const ResponseTimesHttp = HttpApiBuilder.group(Api, "responseTimes", (handlers) =>
  Effect.gen(function*() {
    const responseTimes = yield* ResponseTimes
    return handlers.handle(
      "ofMonitor",
      ({ params, query }) => responseTimes.ofMonitor(params.id, query.period ?? defaultResponseTimesPeriod)
    )
  }))
