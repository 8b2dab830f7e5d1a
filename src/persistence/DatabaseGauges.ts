/**
 * The database's gauges, read at scrape time (runtime/ScrapeGauges.ts) by every role with a
 * database (composed in Roles.ts), into the instruments of observability/Metrics.ts. One small
 * query per scrape, within the scrape's time-out; nothing runs between scrapes.
 */
import { Effect, Layer } from "effect"

import { databaseConnections, databasePoolMax } from "../observability/Metrics.js"
import { labelSets, noLabels } from "../runtime/MetricLabels.js"
import { scrapeGauge } from "../runtime/ScrapeGauges.js"
import { poolSize } from "./Database.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

const stateLabels = labelSets("state")

/** The pool's size (Database.ts) and the service's connections by state, from pg_stat_activity. */
export const DatabaseGauges = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* RetryingSqlClient
  databasePoolMax.updateUnsafe(poolSize, noLabels)
  // The pool itself is private to @effect/sql-pg: the server's view counts every instance's connections.
  const seen = new Set<string>()
  yield* scrapeGauge(Effect.gen(function*() {
    const rows = yield* sql<{ state: string; connections: number }>`
        select coalesce(state, 'unknown') as state, count(*)::int as connections from pg_stat_activity
        where application_name = '@effect/sql-pg' and datname = current_database() group by 1`
    for (const state of seen) databaseConnections.updateUnsafe(0, stateLabels(state))
    for (const { connections, state } of rows) {
      seen.add(state)
      databaseConnections.updateUnsafe(connections, stateLabels(state))
    }
  }))
}))
