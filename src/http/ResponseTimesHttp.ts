import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { defaultResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"

export const ResponseTimesHttp = HttpApiBuilder.group(Api, "responseTimes", (handlers) =>
  Effect.gen(function*() {
    const responseTimes = yield* ResponseTimes
    return handlers.handle(
      "ofMonitor",
      ({ path, urlParams }) => responseTimes.ofMonitor(path.id, urlParams.period ?? defaultResponseTimesPeriod)
    )
  }))
