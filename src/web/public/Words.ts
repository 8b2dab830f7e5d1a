/** The words and marks the public page, the badge and the widget use for states. */
import type { ComponentStatus } from "../../domain/Component.js"
import type { IncidentSeverity, IncidentStatus } from "../../domain/Incident.js"
import type { MaintenanceStatus } from "../../domain/Maintenance.js"

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
