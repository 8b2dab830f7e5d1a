/**
 * What a chat message says about an event, independent of the chat format: a title, a
 * description, labelled facts and a tone. The three chat formats render this one description,
 * so a severity or status has the same colour in Slack, Discord and Teams.
 */
import { DateTime } from "effect"

import type { ComponentStatus } from "../../../../domain/Component.js"
import { formatUtcIso } from "../../../../domain/InstantFormat.js"
import type { MonitorEventData, NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"

/** How alarming an event is; each chat format maps a tone to its own colour vocabulary. */
export type Tone = "good" | "minor" | "major" | "critical" | "maintenance" | "neutral"

export const toneColor: Record<Tone, string> = {
  good: "#22c55e",
  minor: "#eab308",
  major: "#f97316",
  critical: "#ef4444",
  maintenance: "#3b82f6",
  neutral: "#6b7280"
}

const severityTone = { none: "neutral", minor: "minor", major: "major", critical: "critical" } as const

const componentTone: Record<ComponentStatus, Tone> = {
  operational: "good",
  degraded: "minor",
  partial_outage: "major",
  major_outage: "critical",
  maintenance: "maintenance"
}

export interface Fact {
  readonly label: string
  readonly value: string
}

export interface Presentation {
  readonly title: string
  readonly description: string
  readonly facts: ReadonlyArray<Fact>
  readonly tone: Tone
  /** The status page, where the reader learns more. */
  readonly url: string
  /** The organization's name, shown as the footer or author. */
  readonly footer: string
  readonly timestamp: string
}

/** `partial_outage` -> `Partial outage`. */
export const humanize = (value: string): string => {
  const words = value.replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const incidentHeadline = {
  "incident.created": "New incident",
  "incident.updated": "Incident updated",
  "incident.resolved": "Incident resolved"
} as const

const maintenanceHeadline = {
  "maintenance.scheduled": "Maintenance scheduled",
  "maintenance.started": "Maintenance started",
  "maintenance.completed": "Maintenance completed",
  "maintenance.reminder": "Maintenance starts soon"
} as const

const monitorHeadline = { down: "Monitor down", degraded: "Monitor degraded", up: "Monitor up" } as const
const monitorTone = { down: "critical", degraded: "minor", up: "good" } as const

/** One region's evidence in a line: `eu-west: failing ×3 (HTTP 503: …), 120 ms at 2026-03-05 22:00 UTC`. */
export const regionLine = (region: MonitorEventData["regions"][number]): string => {
  const error = region.lastError ?? (region.lastStatusCode === null ? null : `HTTP ${region.lastStatusCode}`)
  const failing = `failing ×${region.consecutiveFailures}`
  const outcome = region.ok ? "ok" : error === null ? failing : `${failing} (${error})`
  const at = formatUtcIso(region.lastCheckedAt)
  return `${region.region}: ${outcome}, ${Math.round(region.lastDurationMs)} ms at ${at}`
}

const body = (event: NotificationEvent): Omit<Presentation, "url" | "footer" | "timestamp"> => {
  switch (event.event) {
    case "incident.created":
    case "incident.updated":
    case "incident.resolved": {
      const { data } = event
      if (data.postmortemPublished === true && data.postmortem) {
        return {
          title: `Postmortem published: ${data.title}`,
          // The event's excerpt, its Markdown read as plain text; the page has the rest.
          description: data.postmortem.truncated ? `${data.postmortem.excerpt.trimEnd()}…` : data.postmortem.excerpt,
          facts: [
            { label: "Status", value: humanize(data.status) },
            { label: "Severity", value: humanize(data.severity) }
          ],
          tone: "neutral"
        }
      }
      return {
        title: `${data.test === true ? "[Test] " : ""}${incidentHeadline[event.event]}: ${data.title}`,
        description: data.message ?? "",
        facts: [
          { label: "Status", value: humanize(data.status) },
          { label: "Severity", value: humanize(data.severity) }
        ],
        tone: data.status === "resolved" || event.event === "incident.resolved" ? "good" : severityTone[data.severity]
      }
    }
    case "maintenance.scheduled":
    case "maintenance.started":
    case "maintenance.completed":
    case "maintenance.reminder": {
      const { data } = event
      return {
        title: `${maintenanceHeadline[event.event]}: ${data.title}`,
        description: `From ${formatUtcIso(data.scheduledStart)} to ${formatUtcIso(data.scheduledEnd)}`,
        facts: [
          { label: "Status", value: humanize(data.status) },
          { label: "Starts", value: formatUtcIso(data.scheduledStart) },
          { label: "Ends", value: formatUtcIso(data.scheduledEnd) }
        ],
        tone: event.event === "maintenance.completed" ? "good" : "maintenance"
      }
    }
    case "component.status_changed": {
      const { data } = event
      return {
        title: `${data.name}: ${humanize(data.status)}`,
        description: `${data.name} changed from ${humanize(data.previousStatus)} to ${humanize(data.status)}.`,
        facts: [
          { label: "Previous status", value: humanize(data.previousStatus) },
          { label: "Status", value: humanize(data.status) }
        ],
        tone: componentTone[data.status]
      }
    }
    case "monitor.down":
    case "monitor.degraded":
    case "monitor.up": {
      const { data } = event
      return {
        title: `${monitorHeadline[data.state]}: ${data.componentName}`,
        description: [
          `The ${data.type} check of ${data.target} is ${data.state} since ${formatUtcIso(data.since)}.`,
          ...data.regions.map(regionLine)
        ].join("\n"),
        facts: [
          { label: "Component", value: data.componentName },
          { label: "Check", value: `${data.type} ${data.target}` },
          { label: "Previous state", value: humanize(data.previousState) },
          { label: "Since", value: formatUtcIso(data.since) }
        ],
        tone: monitorTone[data.state]
      }
    }
  }
}

export const present = (event: NotificationEvent, sender: Sender): Presentation => ({
  ...body(event),
  url: sender.url,
  footer: sender.name,
  timestamp: DateTime.formatIso(event.occurredAt)
})
