/** Words for the API's enumerations, as the dashboard shows them. */
import type { ComponentStatus } from "../../../domain/Component.js"
import type { IncidentSeverity, IncidentStatus } from "../../../domain/Incident.js"
import type { MaintenanceStatus } from "../../../domain/Maintenance.js"
import type { MonitorType } from "../../../domain/Monitor.js"
import type { WebhookType } from "../../../domain/Webhook.js"

export const componentStatuses: ReadonlyArray<{ readonly value: ComponentStatus; readonly label: string }> = [
  { value: "operational", label: "Operational" },
  { value: "degraded", label: "Degraded performance" },
  { value: "partial_outage", label: "Partial outage" },
  { value: "major_outage", label: "Major outage" },
  { value: "maintenance", label: "Under maintenance" }
]

export const webhookTypes: ReadonlyArray<{ readonly value: WebhookType; readonly label: string }> = [
  { value: "generic", label: "Generic JSON (signed)" },
  { value: "chat_a", label: "Slack" },
  { value: "chat_b", label: "Discord" },
  { value: "chat_c", label: "Microsoft Teams" }
]

export const monitorTypes: ReadonlyArray<{ readonly value: MonitorType; readonly label: string }> = [
  { value: "http", label: "HTTP(S) request" },
  { value: "tcp", label: "TCP connection" },
  { value: "ssl_expiry", label: "TLS certificate expiry" }
]

export const labelOf = <V extends string>(options: ReadonlyArray<{ readonly value: V; readonly label: string }>, value: V) =>
  options.find((option) => option.value === value)?.label ?? value

export const incidentStatuses: ReadonlyArray<{ readonly value: IncidentStatus; readonly label: string }> = [
  { value: "investigating", label: "Investigating" },
  { value: "identified", label: "Identified" },
  { value: "monitoring", label: "Monitoring" },
  { value: "resolved", label: "Resolved" }
]

/** The statuses an incident can be opened with; resolving is its own action. */
export const openIncidentStatuses = incidentStatuses.filter((option) => option.value !== "resolved") as ReadonlyArray<
  { readonly value: Exclude<IncidentStatus, "resolved">; readonly label: string }
>

export const incidentSeverities: ReadonlyArray<{ readonly value: IncidentSeverity; readonly label: string }> = [
  { value: "none", label: "None" },
  { value: "minor", label: "Minor" },
  { value: "major", label: "Major" },
  { value: "critical", label: "Critical" }
]

export const maintenanceStatuses: ReadonlyArray<{ readonly value: MaintenanceStatus; readonly label: string }> = [
  { value: "scheduled", label: "Scheduled" },
  { value: "in_progress", label: "In progress" },
  { value: "completed", label: "Completed" },
  { value: "cancelled", label: "Cancelled" }
]
