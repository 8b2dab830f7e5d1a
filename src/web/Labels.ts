/**
 * The dashboard's words for the API's enumerations, one table each. The public pages speak their
 * readers' languages from the catalogues in src/i18n/messages/, whose English holds these words.
 */
import type { ComponentStatus } from "../domain/Component.js"
import type { IncidentSeverity, IncidentStatus } from "../domain/Incident.js"
import type { MaintenanceStatus } from "../domain/Maintenance.js"
import type { MonitorType } from "../domain/Monitor.js"
import type { WebhookType } from "../domain/Webhook.js"

export const componentStatusLabel: Record<ComponentStatus, string> = {
  operational: "Operational",
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  maintenance: "Under maintenance"
}

/** The overall banner's sentence for the worst component status. */
export const overallLabel: Record<ComponentStatus, string> = {
  operational: "All systems operational",
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  maintenance: "Maintenance in progress"
}

/** A mark beside the words, so colour is never the only signal. */
export const statusMark: Record<ComponentStatus, string> = {
  operational: "✓",
  degraded: "!",
  partial_outage: "!",
  major_outage: "✕",
  maintenance: "⚙"
}

export const incidentStatusLabel: Record<IncidentStatus, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved"
}

export const maintenanceStatusLabel: Record<MaintenanceStatus, string> = {
  scheduled: "Scheduled",
  in_progress: "In progress",
  completed: "Completed",
  cancelled: "Cancelled"
}

export const severityLabel: Record<IncidentSeverity, string> = {
  none: "No impact",
  minor: "Minor impact",
  major: "Major impact",
  critical: "Critical impact"
}

export const webhookTypeLabel: Record<WebhookType, string> = {
  generic: "Generic JSON (signed)",
  chat_a: "Slack",
  chat_b: "Discord",
  chat_c: "Microsoft Teams",
  pagerduty: "PagerDuty (Events API v2)",
  opsgenie: "Opsgenie (Alert API)"
}

export const monitorTypeLabel: Record<MonitorType, string> = {
  http: "HTTP(S) request",
  tcp: "TCP connection",
  ssl_expiry: "TLS certificate expiry",
  dns: "DNS lookup",
  push: "Push (heartbeat)",
  icmp: "Ping (ICMP)",
  grpc: "gRPC health",
  postgres: "PostgreSQL",
  mysql: "MySQL / MariaDB",
  redis: "Redis",
  mqtt: "MQTT broker",
  amqp: "AMQP broker (RabbitMQ)"
}

export interface LabelledOption<V extends string> {
  readonly value: V
  readonly label: string
}

/** A table's entries in its order, as the dashboard's select fields list them. */
export const optionsOf = <V extends string>(labels: Record<V, string>): ReadonlyArray<LabelledOption<V>> =>
  (Object.keys(labels) as Array<V>).map((value) => ({ value, label: labels[value] }))

/** The statuses an incident can be opened with; resolving is its own action. */
export const openIncidentStatuses = optionsOf(incidentStatusLabel).filter(
  (option): option is LabelledOption<Exclude<IncidentStatus, "resolved">> => option.value !== "resolved"
)
