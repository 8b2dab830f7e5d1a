/**
 * `pagerduty`: an alert event of PagerDuty's Events API v2, posted to the webhook's URL
 * (`https://events.pagerduty.com/v2/enqueue`). A monitor going down or degraded triggers the
 * alert of its monitor, coming back up resolves it: one stable `dedup_key` per monitor, so a
 * flapping monitor is one alert. Incidents trigger and resolve an alert of their own.
 * https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
 *
 * The body is rendered without `routing_key` (every webhook of the type shares the rendering
 * of an event); the delivery puts the webhook's key in front (`withRoutingKey`).
 */
import { DateTime } from "effect"

import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"
import { truncate } from "./ChatB.js"
import { present } from "./Presentation.js"

/** Events API v2's published bounds. */
export const pagerDutyLimits = { summary: 1024, dedupKey: 255 } as const

type Severity = "critical" | "error" | "warning" | "info"

const incidentSeverity = { none: "info", minor: "warning", major: "error", critical: "critical" } as const

/** The alert an event is about: the same key for every event of one monitor, or of one incident. */
export const onCallKey = (event: NotificationEvent): string => {
  if (event.event.startsWith("incident.") && "test" in event.data && event.data.test === true) {
    // Each test send is an alert of its own, never the real incident's.
    return `status-page:test:${event.id}`
  }
  const subject = event.event.startsWith("monitor.")
    ? "monitor"
    : event.event.startsWith("incident.")
    ? "incident"
    : event.event.startsWith("maintenance.")
    ? "maintenance"
    : "component"
  return truncate(`status-page:${subject}:${event.data.id}`, pagerDutyLimits.dedupKey)
}

/**
 * Whether the event ends its alert: a monitor back up, an incident resolved (also an update to
 * `resolved`, and the postmortem of a resolved one, which must not page again).
 */
export const resolvesAlert = (event: NotificationEvent): boolean => {
  switch (event.event) {
    case "monitor.up":
      return true
    case "incident.created":
    case "incident.updated":
    case "incident.resolved":
      return event.event === "incident.resolved" || event.data.status === "resolved"
    default:
      return false
  }
}

const severityOf = (event: NotificationEvent): Severity => {
  switch (event.event) {
    case "monitor.down":
      return "critical"
    case "monitor.degraded":
      return "warning"
    case "incident.created":
    case "incident.updated":
    case "incident.resolved":
      return event.data.test === true ? "info" : incidentSeverity[event.data.severity]
    default:
      // Never sent: an on-call webhook cannot receive maintenance or component events.
      return "info"
  }
}

interface Details {
  readonly source: string
  readonly timestamp: string
  readonly component?: string
  readonly class: string
  readonly custom_details?: object
}

/** `source`, `component`, `class` and `custom_details` of a trigger: the monitor's evidence, or the incident. */
const detailsOf = (event: NotificationEvent, sender: Sender): Details => {
  switch (event.event) {
    case "monitor.down":
    case "monitor.degraded":
    case "monitor.up": {
      const { data } = event
      return {
        source: data.target,
        timestamp: data.since,
        component: data.componentName,
        class: `${data.type} check`,
        custom_details: data
      }
    }
    case "incident.created":
    case "incident.updated":
    case "incident.resolved": {
      const { data } = event
      return {
        source: sender.url,
        timestamp: DateTime.formatIso(event.occurredAt),
        class: "incident",
        custom_details: {
          status: data.status,
          severity: data.severity,
          message: data.message,
          componentIds: data.componentIds
        }
      }
    }
    default:
      return { source: sender.url, timestamp: DateTime.formatIso(event.occurredAt), class: event.event }
  }
}

export const pagerDuty = (event: NotificationEvent, sender: Sender) => {
  const dedup_key = onCallKey(event)
  if (resolvesAlert(event)) return { event_action: "resolve" as const, dedup_key }
  const { class: eventClass, component, custom_details, source, timestamp } = detailsOf(event, sender)
  return {
    event_action: "trigger" as const,
    dedup_key,
    payload: {
      summary: truncate(present(event, sender).title, pagerDutyLimits.summary),
      source,
      severity: severityOf(event),
      timestamp,
      ...(component === undefined ? {} : { component }),
      group: sender.name,
      class: eventClass,
      ...(custom_details === undefined ? {} : { custom_details })
    },
    client: sender.name,
    client_url: sender.url,
    links: [{ href: sender.url, text: `${sender.name} status page` }]
  }
}

/** The body with the webhook's key as `routing_key`, first: the rendering of an event is shared by every webhook. */
export const withRoutingKey = (body: string, routingKey: string): string =>
  `{"routing_key":${JSON.stringify(routingKey)},${body.slice(1)}`
