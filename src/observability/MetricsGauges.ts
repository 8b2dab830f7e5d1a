/**
 * The gauges read at scrape time, one layer per role that knows them (composed in Roles.ts).
 * Each costs at most one small query or one Redis round trip per scrape, within the scrape's
 * time-out; nothing runs between scrapes.
 */
import { Effect, Layer } from "effect"

import { poolSize } from "../persistence/Database.js"
import { RetryingSqlClient } from "../persistence/RetryingSqlClient.js"
import { JobTransport } from "../queue/JobTransport.js"
import { PublicSnapshot } from "../services/public/PublicSnapshot.js"
import {
  databaseConnections,
  databasePoolMax,
  labelSets,
  noLabels,
  outboxBacklog,
  outboxOldest,
  retryBacklog,
  scrapeGauge,
  snapshotAge,
  snapshotBehind,
  streamLength,
  streamPending
} from "./Metrics.js"

const streamLabels = labelSets("stream", "region")
const stateLabels = labelSets("state")
const channelLabels = labelSets("channel")

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

/** The dispatcher's backlogs: outbox events not handed over, deliveries waiting for a retry. */
export const DispatcherGauges = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* RetryingSqlClient
  yield* scrapeGauge(Effect.gen(function*() {
    const [row] = yield* sql<{ backlog: number; oldestSeconds: number; webhooks: number; mails: number }>`
      select
        (select count(*)::int from outbox_events where delivered_at is null) as backlog,
        (select coalesce(extract(epoch from now() - min(created_at)), 0)::float8
           from outbox_events where delivered_at is null) as oldest_seconds,
        (select count(*)::int from webhook_deliveries where status = 'pending' and attempts > 0) as webhooks,
        (select count(*)::int from mail_deliveries where status = 'pending' and attempts > 0) as mails`
    outboxBacklog.updateUnsafe(row!.backlog, noLabels)
    outboxOldest.updateUnsafe(row!.oldestSeconds, noLabels)
    retryBacklog.updateUnsafe(row!.webhooks, channelLabels("webhook"))
    retryBacklog.updateUnsafe(row!.mails, channelLabels("mail"))
  }))
}))

/** Each known region's jobs and results streams: length and pending entries (XLEN, XPENDING). */
export const TransportGauges = Layer.effectDiscard(Effect.gen(function*() {
  const transport = yield* JobTransport
  yield* scrapeGauge(Effect.gen(function*() {
    for (const { length, pending, region, stream } of yield* transport.backlog()) {
      streamLength.updateUnsafe(length, streamLabels(stream, region))
      streamPending.updateUnsafe(pending, streamLabels(stream, region))
    }
  }))
}))

/** The public snapshot's age and whether it is behind the latest change. */
export const SnapshotGauges = Layer.effectDiscard(Effect.gen(function*() {
  const snapshot = yield* PublicSnapshot
  yield* scrapeGauge(Effect.sync(() => {
    const { behind, builtAt } = snapshot.freshness()
    if (builtAt !== undefined) snapshotAge.updateUnsafe((Date.now() - builtAt) / 1000, noLabels)
    snapshotBehind.updateUnsafe(behind ? 1 : 0, noLabels)
  }))
})).pipe(Layer.provide(PublicSnapshot.layer))
