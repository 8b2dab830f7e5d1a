/**
 * The public snapshot's gauges, read at scrape time (runtime/ScrapeGauges.ts) by the api role
 * (composed in Roles.ts), into the instruments of observability/Metrics.ts. They read the
 * snapshot in memory: no query.
 */
import { Effect, Layer } from "effect"

import { snapshotAge, snapshotBehind } from "../../observability/Metrics.js"
import { noLabels } from "../../runtime/MetricLabels.js"
import { scrapeGauge } from "../../runtime/ScrapeGauges.js"
import { PublicSnapshot } from "./PublicSnapshot.js"

/** The public snapshot's age and whether it is behind the latest change. */
export const SnapshotGauges = Layer.effectDiscard(Effect.gen(function*() {
  const snapshot = yield* PublicSnapshot
  yield* scrapeGauge(Effect.sync(() => {
    const { behind, builtAt } = snapshot.freshness()
    if (builtAt !== undefined) snapshotAge.updateUnsafe((Date.now() - builtAt) / 1000, noLabels)
    snapshotBehind.updateUnsafe(behind ? 1 : 0, noLabels)
  }))
})).pipe(Layer.provide(PublicSnapshot.layer))
