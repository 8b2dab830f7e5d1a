/**
 * What is wrong now, in one answer (GET /api/v1/admin/overview, the dashboard's first screen):
 * monitors down or degraded, open incidents, probes offline, webhooks failing and mail backing
 * up. Each list is capped; `counts` gives the totals.
 */
import { Duration, Schema } from "effect"

import { ComponentId } from "./Component.js"
import { IncidentId, IncidentSeverity, IncidentStatus } from "./Incident.js"
import { MonitorId } from "./Monitor.js"
import { Class } from "./Named.js"
import { WebhookId } from "./Webhook.js"

/** A field with its description in the OpenAPI document. */
const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] =>
  schema.annotate({ description })

/** How many items each list of the overview holds at most; `counts` has the totals. */
export const overviewLimits = {
  monitors: 100,
  incidents: 50,
  webhooks: 50,
  /** Offline probes named per region. */
  probesPerRegion: 20
} as const

/** Mail waiting longer than this (and any mail waiting for a retry) is mail backing up. */
export const mailBackingUpAfter = Duration.minutes(1)

/** What one region last found of a monitor that is down or degraded. */
export class OverviewRegion extends Class<OverviewRegion>("OverviewRegion")({
  region: Schema.String,
  /** `failing`: its last check failed; `slow`: it succeeded slower than the monitor's `degradedAboveMs`. */
  status: described(
    Schema.Literals(["failing", "slow"]),
    "failing: the region's last check failed; slow: it succeeded slower than degradedAboveMs"
  ),
  consecutiveFailures: Schema.Int,
  /** When its current streak of failures began (the first failed run); null when it is slow. */
  failingSince: described(
    Schema.NullOr(Schema.DateTimeUtcFromString),
    "When the region's current streak of failures began"
  ),
  lastCheckedAt: Schema.DateTimeUtcFromString,
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastDurationMs: Schema.Finite,
  lastError: described(Schema.NullOr(Schema.String), "The error of the region's last check")
}, { description: "A region that sees the monitor failing or slow, with its last check" }) {}

export class OverviewMonitor extends Class<OverviewMonitor>("OverviewMonitor")({
  id: MonitorId,
  componentId: ComponentId,
  componentName: Schema.String,
  type: Schema.String,
  url: Schema.String,
  state: Schema.Literals(["down", "degraded"]),
  /** Down: when the quorum of failures first held (the open down interval's start); degraded: when it became so. */
  since: described(
    Schema.DateTimeUtcFromString,
    "Down: when the quorum of failing regions first held (the open down interval's start); degraded: when it became degraded"
  ),
  regions: described(
    Schema.Array(OverviewRegion),
    "The monitor's regions whose last check failed or was slow, in region order"
  )
}, { description: "A monitor that is down or degraded" }) {}

export class OverviewIncident extends Class<OverviewIncident>("OverviewIncident")({
  id: IncidentId,
  title: Schema.String,
  status: IncidentStatus,
  severity: IncidentSeverity,
  isPublic: Schema.Boolean,
  startedAt: described(Schema.DateTimeUtcFromString, "When the incident was opened"),
  updatedAt: Schema.DateTimeUtcFromString
}, { description: "An unresolved incident" }) {}

export class OverviewProbe extends Class<OverviewProbe>("OverviewProbe")({
  name: Schema.String,
  version: Schema.String,
  lastSeenAt: described(Schema.DateTimeUtcFromString, "When the server last received a heartbeat from it")
}, { description: "A probe silent for more than 30 seconds" }) {}

export class OverviewProbeRegion extends Class<OverviewProbeRegion>("OverviewProbeRegion")({
  region: Schema.String,
  online: described(Schema.Int, "Probes of the region heard from within the last 30 seconds"),
  /** True when no probe of the region is online: quorum counts it as "no data". */
  regionOffline: described(
    Schema.Boolean,
    "No probe of the region is online: quorum leaves the region out as no data"
  ),
  offlineCount: Schema.Int,
  offline: described(
    Schema.Array(OverviewProbe),
    `The silent probes, most recently seen first (at most ${overviewLimits.probesPerRegion})`
  )
}, { description: "A region with at least one offline probe" }) {}

export class OverviewWebhook extends Class<OverviewWebhook>("OverviewWebhook")({
  id: WebhookId,
  name: Schema.String,
  url: Schema.String,
  consecutiveFailures: described(
    Schema.Int,
    "Deliveries given up (every retry failed) in a row since the last successful one"
  ),
  retrying: described(Schema.Int, "Deliveries whose attempts failed so far, waiting for their next retry"),
  lastError: described(Schema.NullOr(Schema.String), "The error of the latest failed attempt"),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastFailedAt: Schema.NullOr(Schema.DateTimeUtcFromString)
}, { description: "An active webhook whose deliveries fail" }) {}

export class OverviewMail extends Class<OverviewMail>("OverviewMail")({
  waiting: described(Schema.Int, "Mails not sent yet, retries included"),
  retrying: described(Schema.Int, "Waiting mails whose attempts failed so far"),
  oldestWaitingSince: Schema.NullOr(Schema.DateTimeUtcFromString),
  oldestWaitingSeconds: described(Schema.NullOr(Schema.Int), "Age of the oldest waiting mail, in seconds"),
  lastError: described(Schema.NullOr(Schema.String), "The latest error of a mail waiting for a retry"),
  backingUp: described(
    Schema.Boolean,
    "A mail is waiting for a retry, or the oldest waiting mail is over a minute old"
  )
}, { description: "Subscriber mail waiting to be sent" }) {}

export class OverviewCounts extends Class<OverviewCounts>("OverviewCounts")({
  monitorsDown: Schema.Int,
  monitorsDegraded: Schema.Int,
  incidentsOpen: Schema.Int,
  probesOffline: Schema.Int,
  regionsOffline: described(Schema.Int, "Regions the registry knows with no probe online"),
  webhooksFailing: Schema.Int
}, { description: "Totals of the overview's lists, which are capped" }) {}

export class OverviewReport extends Class<OverviewReport>("OverviewReport")({
  generatedAt: Schema.DateTimeUtcFromString,
  /** Nothing is down, degraded, open, offline or failing, and mail is not backing up. */
  allClear: described(
    Schema.Boolean,
    "True when every count is 0 and mail is not backing up"
  ),
  counts: OverviewCounts,
  monitors: described(
    Schema.Array(OverviewMonitor),
    `Down monitors first, then degraded, each group longest-standing first (at most ${overviewLimits.monitors})`
  ),
  incidents: described(
    Schema.Array(OverviewIncident),
    `Unresolved incidents, newest first (at most ${overviewLimits.incidents})`
  ),
  probes: described(Schema.Array(OverviewProbeRegion), "Regions with offline probes, in region order"),
  webhooks: described(
    Schema.Array(OverviewWebhook),
    `Failing webhooks, most recent failure first (at most ${overviewLimits.webhooks})`
  ),
  mail: OverviewMail
}, { description: "What is wrong now" }) {}
