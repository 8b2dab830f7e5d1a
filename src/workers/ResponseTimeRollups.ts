import { Duration, Effect, Layer, Schedule } from "effect"

import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"

/** How often the ingest role folds pending response times into the rollups: how far charts may lag. */
export const foldInterval = Duration.seconds(10)

/**
 * The ingest role's rollup fiber: folds the response times ingest queued into the hourly and
 * daily rollups at start and then every 10 s, off ingest's transactions. A failed fold (database
 * away) is logged; its rows stay pending and the next fold takes them.
 */
export const ResponseTimeRollups = Layer.effectDiscard(
  Effect.gen(function*() {
    const responseTimes = yield* ResponseTimes
    yield* responseTimes.fold().pipe(
      Effect.catchCause((cause) => Effect.logWarning("Folding response times failed; retrying in 10 s", cause)),
      Effect.repeat(Schedule.spaced(foldInterval)),
      Effect.annotateLogs("fiber", "response-time-rollups"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(ResponseTimes.layer))
