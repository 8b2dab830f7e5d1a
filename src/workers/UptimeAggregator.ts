import { Effect, Layer, Schedule } from "effect"

import { Uptime } from "../services/monitoring/Uptime.js"

/**
 * The aggregation fiber: refreshes the uptime rollups at start and then every minute, so
 * downtime shows in GET /status/uptime within two minutes. A failed run is logged and the
 * next one catches up.
 */
export const UptimeAggregator = Layer.effectDiscard(
  Effect.gen(function*() {
    const uptime = yield* Uptime
    yield* uptime.refresh.pipe(
      Effect.catchCause((cause) => Effect.logWarning("Uptime refresh failed; retrying in a minute", cause)),
      Effect.repeat(Schedule.spaced("1 minute")),
      Effect.annotateLogs("fiber", "uptime-aggregator"),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(Uptime.layer))
