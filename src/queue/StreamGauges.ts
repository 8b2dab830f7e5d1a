/**
 * The job transport's gauges, read at scrape time (runtime/ScrapeGauges.ts) by the scheduler and
 * ingest roles (composed in Roles.ts), into the instruments of observability/Metrics.ts. One
 * Redis round trip per scrape, within the scrape's time-out; nothing runs between scrapes.
 */
import { Effect, Layer } from "effect"

import { streamLength, streamPending } from "../observability/Metrics.js"
import { labelSets } from "../runtime/MetricLabels.js"
import { scrapeGauge } from "../runtime/ScrapeGauges.js"
import { JobTransport } from "./JobTransport.js"

const streamLabels = labelSets("stream", "region")

/** Each known region's jobs and results streams: length and pending entries (XLEN, XPENDING). */
export const StreamGauges = Layer.effectDiscard(Effect.gen(function*() {
  const transport = yield* JobTransport
  yield* scrapeGauge(Effect.gen(function*() {
    for (const { length, pending, region, stream } of yield* transport.backlog()) {
      streamLength.updateUnsafe(length, streamLabels(stream, region))
      streamPending.updateUnsafe(pending, streamLabels(stream, region))
    }
  }))
}))
