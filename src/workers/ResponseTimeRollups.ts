import { Duration, Effect, Layer, Schedule } from "effect"

import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"

/** How often the ingest role folds pending response times into the rollups: how far charts may lag. */
export const foldInterval = Duration.minutes(1)

/**
 * The ingest role's rollup fiber: folds the response times ingest queued into the hourly and
 * daily rollups at start and then every minute, off ingest's transactions. A fold's cost is
 * mostly its upserts, two rollup rows per monitor and region whatever the number of results: at
 * a 20 s interval, folding every 10 s instead cost the embedded default 2.4 ms of CPU a second
 * at 500 monitors (docs/benchmarks.md, "Third round"). A failed fold (database away) is logged;
 * its rows stay pending and the next fold takes them.
 */
export const ResponseTimeRollups = Layer.effectDiscard(
  Effect.gen(function*() {
    const responseTimes = yield* ResponseTimes
    yield* responseTimes.fold().pipe(
      Effect.catchCause((cause) => Effect.logWarning("Folding response times failed; retrying in a minute", cause)),
      Effect.repeat(Schedule.spaced(foldInterval)),
      Effect.annotateLogs("fiber", "response-time-rollups"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(ResponseTimes.layer))
