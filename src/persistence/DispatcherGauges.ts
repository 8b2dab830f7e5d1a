/**
 * The dispatcher's backlogs, read at scrape time (runtime/ScrapeGauges.ts) from the tables they
 * live in (outbox_events, webhook_deliveries, mail_deliveries) by the dispatcher role (composed in
 * Roles.ts), into the instruments of observability/Metrics.ts. One small query per scrape, within
 * the scrape's time-out; nothing runs between scrapes.
 */
import { Effect, Layer } from "effect"

import { outboxBacklog, outboxOldest, retryBacklog } from "../observability/Metrics.js"
import { labelSets, noLabels } from "../runtime/MetricLabels.js"
import { scrapeGauge } from "../runtime/ScrapeGauges.js"
import { awaitingRetry } from "./DeliveryQueueSql.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

const channelLabels = labelSets("channel")

/** The dispatcher's backlogs: outbox events not handed over, deliveries waiting for a retry. */
export const DispatcherGauges = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* RetryingSqlClient
  yield* scrapeGauge(Effect.gen(function*() {
    const [row] = yield* sql<{ backlog: number; oldestSeconds: number; webhooks: number; mails: number }>`
      select
        (select count(*)::int from outbox_events where delivered_at is null) as backlog,
        (select coalesce(extract(epoch from now() - min(created_at)), 0)::float8
           from outbox_events where delivered_at is null) as oldest_seconds,
        (select count(*)::int from webhook_deliveries where ${awaitingRetry(sql)}) as webhooks,
        (select count(*)::int from mail_deliveries where ${awaitingRetry(sql)}) as mails`
    outboxBacklog.updateUnsafe(row!.backlog, noLabels)
    outboxOldest.updateUnsafe(row!.oldestSeconds, noLabels)
    retryBacklog.updateUnsafe(row!.webhooks, channelLabels("webhook"))
    retryBacklog.updateUnsafe(row!.mails, channelLabels("mail"))
  }))
}))
