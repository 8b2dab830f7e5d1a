import { Schema } from "effect"

/** The events of the specification; each is written to the outbox with the change it describes. */
export const EventName = Schema.Literals([
  "incident.created",
  "incident.updated",
  "incident.resolved",
  "maintenance.scheduled",
  "maintenance.started",
  "maintenance.completed",
  "maintenance.reminder",
  "component.status_changed",
  /** A monitor's state, for the operators' webhooks only (never mailed to subscribers). */
  "monitor.down",
  "monitor.degraded",
  "monitor.up"
])
export type EventName = typeof EventName.Type
