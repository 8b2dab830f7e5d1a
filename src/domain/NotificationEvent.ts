/**
 * The events that notifications are made of (docs/notifications.md, "Events").
 * The outbox stores them; the webhook formats and the notification mail render them. Pure data.
 */
import { Schema } from "effect"

import { ComponentStatus } from "./Component.js"

export const IncidentEventName = Schema.Literals(["incident.created", "incident.updated", "incident.resolved"])
export const MaintenanceEventName = Schema.Literals([
  "maintenance.scheduled",
  "maintenance.started",
  "maintenance.completed",
  /** A scheduled window starts within the organization's `maintenanceReminderHours`. */
  "maintenance.reminder"
])
export const ComponentEventName = Schema.Literal("component.status_changed")
/** A monitor's state moved (docs/notifications.md, "Monitor events"): the operators' channel, never mailed. */
export const MonitorEventName = Schema.Literals(["monitor.down", "monitor.degraded", "monitor.up"])

export const EventName = Schema.Union([IncidentEventName, MaintenanceEventName, ComponentEventName, MonitorEventName])
export type EventName = typeof EventName.Type

export const IncidentStatusValue = Schema.Literals(["investigating", "identified", "monitoring", "resolved"])
export const IncidentSeverityValue = Schema.Literals(["none", "minor", "major", "critical"])
export const MaintenanceStatusValue = Schema.Literals(["scheduled", "in_progress", "completed", "cancelled"])

export const IncidentEventData = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  status: IncidentStatusValue,
  severity: IncidentSeverityValue,
  componentIds: Schema.Array(Schema.String),
  /** The latest timeline message (the initial message on creation). */
  message: Schema.NullOr(Schema.String),
  /** ISO 8601 UTC; the outbox records them, the sample of a test send has none. */
  createdAt: Schema.optionalKey(Schema.String),
  updatedAt: Schema.optionalKey(Schema.String),
  resolvedAt: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** The start of the published postmortem (Markdown, at most 1,000 characters), else null; a draft is never sent. */
  postmortem: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ excerpt: Schema.String, truncated: Schema.Boolean, publishedAt: Schema.String }))
  ),
  /** Only in the `incident.created` written when a draft is published: its timeline so far, oldest first. */
  updates: Schema.optionalKey(Schema.Array(Schema.Struct({
    id: Schema.String,
    status: IncidentStatusValue,
    message: Schema.String,
    createdAt: Schema.String
  }))),
  /** Present and true only in the `incident.updated` written when the postmortem is published. */
  postmortemPublished: Schema.optionalKey(Schema.Boolean),
  /** Present and true only in the sample sent by POST /admin/webhooks/:id/test. */
  test: Schema.optionalKey(Schema.Boolean)
})
export type IncidentEventData = typeof IncidentEventData.Type

export const MaintenanceEventData = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  status: MaintenanceStatusValue,
  /** ISO 8601 UTC. */
  scheduledStart: Schema.String,
  scheduledEnd: Schema.String,
  componentIds: Schema.Array(Schema.String)
})
export type MaintenanceEventData = typeof MaintenanceEventData.Type

export const ComponentEventData = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  previousStatus: ComponentStatus,
  status: ComponentStatus
})
export type ComponentEventData = typeof ComponentEventData.Type

/** What one region of a monitor last found: the evidence the quorum decided on. */
export const MonitorRegionEvidence = Schema.Struct({
  region: Schema.String,
  ok: Schema.Boolean,
  consecutiveFailures: Schema.Int,
  /** ISO 8601 UTC. */
  lastCheckedAt: Schema.String,
  lastDurationMs: Schema.Finite,
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String)
})

export const MonitorEventData = Schema.Struct({
  /** The monitor. */
  id: Schema.String,
  /** Its check type (`http`, `tcp`, `push`, …). */
  type: Schema.String,
  /** What it checks: its stored `url` (a push monitor's holds no token). */
  target: Schema.String,
  componentId: Schema.String,
  componentName: Schema.String,
  state: Schema.Literals(["down", "degraded", "up"]),
  previousState: Schema.Literals(["unknown", "up", "degraded", "down"]),
  /** ISO 8601 UTC: when the quorum first held (down) or the run that brought it back (up, degraded). */
  since: Schema.String,
  /** Each region's latest, by region name. */
  regions: Schema.Array(MonitorRegionEvidence)
})
export type MonitorEventData = typeof MonitorEventData.Type

const eventFields = {
  /** Stable id of the event (the outbox row). */
  id: Schema.String,
  occurredAt: Schema.DateTimeUtcFromString,
  /** The components the event is about: the webhook `componentIds` filter applies to them. */
  componentIds: Schema.Array(Schema.String)
}

export const IncidentEvent = Schema.Struct({ ...eventFields, event: IncidentEventName, data: IncidentEventData })
export const MaintenanceEvent = Schema.Struct({
  ...eventFields,
  event: MaintenanceEventName,
  data: MaintenanceEventData
})
export const ComponentEvent = Schema.Struct({ ...eventFields, event: ComponentEventName, data: ComponentEventData })
export const MonitorEvent = Schema.Struct({ ...eventFields, event: MonitorEventName, data: MonitorEventData })

export const NotificationEvent = Schema.Union([IncidentEvent, MaintenanceEvent, ComponentEvent, MonitorEvent])
export type NotificationEvent = typeof NotificationEvent.Type
export type IncidentEvent = typeof IncidentEvent.Type
export type MaintenanceEvent = typeof MaintenanceEvent.Type
export type ComponentEvent = typeof ComponentEvent.Type
export type MonitorEvent = typeof MonitorEvent.Type

/** The toggle of a webhook that enables an event (docs/notifications.md, "Events"). */
export type NotifyToggle = "notifyOnIncident" | "notifyOnMaintenance" | "notifyOnComponentChange" | "notifyOnMonitor"

export const toggleOf = (event: EventName): NotifyToggle =>
  event.startsWith("incident.")
    ? "notifyOnIncident"
    : event.startsWith("maintenance.")
    ? "notifyOnMaintenance"
    : event.startsWith("monitor.")
    ? "notifyOnMonitor"
    : "notifyOnComponentChange"

/** Who the notification is from: the organization's name and the public status-page address. */
export interface Sender {
  readonly name: string
  readonly url: string
}
