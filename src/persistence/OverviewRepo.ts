/**
 * The reads of the operators' overview: what is down, open, failing or waiting, each a single
 * statement with a limit that also counts the whole (`count(*) over ()`). They read indexed or
 * small sets: monitors and webhooks (a few thousand rows at most), unresolved incidents, and
 * pending deliveries (partial indexes on `status = 'pending'`).
 */
import { Context, Effect, Layer, Schema } from "effect"

import { ComponentId } from "../domain/Component.js"
import { IncidentId, IncidentSeverity, OpenIncidentStatus } from "../domain/Incident.js"
import { MonitorId } from "../domain/Monitor.js"
import { WebhookId } from "../domain/Webhook.js"
import { awaitingRetry } from "./DeliveryQueueSql.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** What one region last found, as the monitor's json aggregate carries it. */
export const StoredRegionState = Schema.Struct({
  region: Schema.String,
  lastScheduledAt: Schema.DateTimeUtcFromString,
  lastCheckedAt: Schema.DateTimeUtcFromString,
  lastOk: Schema.Boolean,
  consecutiveFailures: Schema.Int,
  failingSince: Schema.NullOr(Schema.DateTimeUtcFromString),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  lastDurationMs: Schema.Number
})

export class ProblemMonitorRow extends Schema.Class<ProblemMonitorRow>("ProblemMonitorRow")({
  id: MonitorId,
  componentId: ComponentId,
  componentName: Schema.String,
  type: Schema.String,
  url: Schema.String,
  state: Schema.Literals(["down", "degraded"]),
  regions: Schema.NullOr(Schema.Array(Schema.String)),
  degradedAboveMs: Schema.NullOr(Schema.Int),
  since: Schema.DateTimeUtcFromDate,
  regionStates: Schema.Array(StoredRegionState),
  total: Schema.Int,
  down: Schema.Int
}) {}

export class OpenIncidentRow extends Schema.Class<OpenIncidentRow>("OpenIncidentRow")({
  id: IncidentId,
  title: Schema.String,
  status: OpenIncidentStatus,
  severity: IncidentSeverity,
  isPublic: Schema.Boolean,
  startedAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate,
  total: Schema.Int
}) {}

export class FailingWebhookRow extends Schema.Class<FailingWebhookRow>("FailingWebhookRow")({
  id: WebhookId,
  name: Schema.String,
  url: Schema.String,
  consecutiveFailures: Schema.Int,
  retrying: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastFailedAt: Schema.NullOr(Schema.DateTimeUtcFromDate),
  total: Schema.Int
}) {}

export class MailBacklogRow extends Schema.Class<MailBacklogRow>("MailBacklogRow")({
  waiting: Schema.Int,
  retrying: Schema.Int,
  oldestWaitingSince: Schema.NullOr(Schema.DateTimeUtcFromDate),
  lastError: Schema.NullOr(Schema.String)
}) {}

/** An offline probe, with its region's counts of online and offline probes. */
export class OfflineProbeRow extends Schema.Class<OfflineProbeRow>("OfflineProbeRow")({
  region: Schema.String,
  name: Schema.String,
  version: Schema.String,
  lastSeenAt: Schema.DateTimeUtcFromDate,
  online: Schema.Int,
  offline: Schema.Int
}) {}

export class OverviewRepo extends Context.Service<OverviewRepo>()("OverviewRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const monitors = rowsOf(ProblemMonitorRow)
    const incidents = rowsOf(OpenIncidentRow)
    const webhooks = rowsOf(FailingWebhookRow)
    const mail = rowsOf(MailBacklogRow)
    const offlineProbes = rowsOf(OfflineProbeRow)

    return {
      /**
       * Monitors down, then degraded, each longest-standing first, with every region's state.
       * A down monitor is down since its open down interval began (when the quorum first held).
       */
      problemMonitors: (limit: number) =>
        monitors.all(sql`
          select m.id, m.component_id, c.name as component_name, m.type, m.url, m.state, m.regions,
                 m.degraded_above_ms, coalesce(d.started_at, m.state_changed_at, m.updated_at) as since,
                 coalesce((
                   select json_agg(json_build_object(
                     'region', s.region, 'lastScheduledAt', s.last_scheduled_at, 'lastCheckedAt', s.last_checked_at,
                     'lastOk', s.last_ok, 'consecutiveFailures', s.consecutive_failures,
                     'failingSince', s.failing_since, 'lastStatusCode', s.last_status_code,
                     'lastError', s.last_error, 'lastDurationMs', s.last_duration_ms) order by s.region)
                   from monitor_region_state s where s.monitor_id = m.id), '[]'::json) as region_states,
                 (count(*) over ())::int as total,
                 (count(*) filter (where m.state = 'down') over ())::int as down
          from monitors m
          join components c on c.id = m.component_id
          left join monitor_downtime d on d.monitor_id = m.id and d.ended_at is null and m.state = 'down'
          where m.state in ('down', 'degraded')
          order by m.state = 'down' desc, since, m.id
          limit ${limit}`),

      /** Unresolved incidents, newest first. */
      openIncidents: (limit: number) =>
        incidents.all(sql`
          select id, title, status, severity, is_public, created_at as started_at, updated_at,
                 (count(*) over ())::int as total
          from incidents where status <> 'resolved'
          order by created_at desc, id desc
          limit ${limit}`),

      /**
       * Active webhooks whose deliveries fail: some given up since their last success
       * (`consecutive_failures`) or waiting for a retry after failed attempts; with the latest
       * failed attempt (test sends left out), most recent first.
       */
      failingWebhooks: (limit: number) =>
        webhooks.all(sql`
          with retrying as (
            select webhook_id, count(*)::int as retrying
            from webhook_deliveries where ${awaitingRetry(sql)}
            group by webhook_id
          ), failing as (
            select w.id, w.name, w.url, w.consecutive_failures, w.last_error, coalesce(r.retrying, 0) as retrying
            from webhooks w left join retrying r on r.webhook_id = w.id
            where w.is_active and (w.consecutive_failures > 0 or r.retrying > 0)
          )
          select f.id, f.name, f.url, f.consecutive_failures, f.retrying,
                 coalesce(a.error, f.last_error) as last_error, a.status_code as last_status_code,
                 a.attempted_at as last_failed_at, (count(*) over ())::int as total
          from failing f
          left join lateral (
            select error, status_code, attempted_at from webhook_delivery_attempts
            where webhook_id = f.id and not success and not test
            order by attempted_at desc limit 1
          ) a on true
          order by a.attempted_at desc nulls last, f.name, f.id
          limit ${limit}`),

      /**
       * The regions with a probe last seen before `offlineBefore`: their `perRegion` offline
       * probes seen last, most recent first, each with the region's counts, by region. The
       * registry holds at most a few hundred probes per region (`maxProbesPerRegion`).
       */
      offlineProbes: (offlineBefore: Date, perRegion: number) =>
        offlineProbes.all(sql`
          select region, name, version, last_seen_at, online, offline from (
            select region, name, version, last_seen_at,
                   (count(*) filter (where last_seen_at >= ${offlineBefore}) over (partition by region))::int as online,
                   (count(*) filter (where last_seen_at < ${offlineBefore}) over (partition by region))::int as offline,
                   row_number() over (
                     partition by region, last_seen_at < ${offlineBefore} order by last_seen_at desc, name) as rank
            from probes
          ) ranked
          where last_seen_at < ${offlineBefore} and rank <= ${perRegion}
          order by region, last_seen_at desc, name`),

      /** Mail not sent yet: how much, how much of it after failed attempts, since when, and the latest error. */
      mailBacklog: () =>
        mail.all(sql`
          select count(*)::int as waiting, (count(*) filter (where attempts > 0))::int as retrying,
                 min(created_at) as oldest_waiting_since,
                 (select last_error from mail_deliveries
                  where ${awaitingRetry(sql)} and last_error is not null
                  order by updated_at desc limit 1) as last_error
          from mail_deliveries where status = 'pending'`).pipe(Effect.map((rows) => rows[0]!))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
