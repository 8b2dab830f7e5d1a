/**
 * `opsgenie`: Opsgenie's Alert API. The webhook's URL is the alerts endpoint
 * (`https://api.opsgenie.com/v2/alerts`, or `https://api.eu.opsgenie.com/v2/alerts`): a monitor
 * going down or degraded, or an incident, creates an alert (`POST {url}`), and coming back up or
 * being resolved closes it (`POST {url}/{alias}/close?identifierType=alias`). The alias is the
 * same for every event of one monitor (of one incident), so Opsgenie counts a repeat on the open
 * alert instead of opening another. Authenticated with `Authorization: GenieKey <key>`.
 * Every field is cut to the published limits rather than refused.
 * https://docs.opsgenie.com/docs/alert-api
 */
import type { NotificationEvent, Sender } from "../../../../domain/NotificationEvent.js"
import { truncate } from "./ChatB.js"
import { onCallKey, resolvesAlert } from "./PagerDuty.js"
import { present, regionLine } from "./Presentation.js"

/** The Alert API's published limits. */
export const opsgenieLimits = {
  message: 130,
  alias: 512,
  description: 15000,
  tags: 20,
  tag: 50,
  details: 8000,
  entity: 512,
  source: 100,
  note: 25000
} as const

type Priority = "P1" | "P2" | "P3" | "P4" | "P5"

const incidentPriority = { none: "P5", minor: "P3", major: "P2", critical: "P1" } as const

const priorityOf = (event: NotificationEvent): Priority => {
  switch (event.event) {
    case "monitor.down":
      return "P1"
    case "monitor.degraded":
      return "P3"
    case "incident.created":
    case "incident.updated":
    case "incident.resolved":
      return event.data.test === true ? "P5" : incidentPriority[event.data.severity]
    default:
      // Never sent: an on-call webhook cannot receive maintenance or component events.
      return "P5"
  }
}

/** Custom properties: strings only, at most 8,000 characters in all (keys and values); what does not fit is left out. */
const detailsOf = (event: NotificationEvent): Record<string, string> => {
  const entries: Array<readonly [string, string]> = []
  switch (event.event) {
    case "monitor.down":
    case "monitor.degraded":
    case "monitor.up": {
      const { data } = event
      entries.push(
        ["monitorId", data.id],
        ["type", data.type],
        ["target", data.target],
        ["componentId", data.componentId],
        ["componentName", data.componentName],
        ["state", data.state],
        ["previousState", data.previousState],
        ["since", data.since],
        ...data.regions.map((region) => [`region ${region.region}`, regionLine(region)] as const)
      )
      break
    }
    case "incident.created":
    case "incident.updated":
    case "incident.resolved": {
      const { data } = event
      entries.push(
        ["incidentId", data.id],
        ["status", data.status],
        ["severity", data.severity],
        ["componentIds", data.componentIds.join(", ")]
      )
      break
    }
    default:
      entries.push(["id", event.data.id])
  }
  const details: Record<string, string> = {}
  let left = opsgenieLimits.details
  for (const [key, value] of entries) {
    const room = left - key.length
    if (room <= 0) break
    const cut = truncate(value, Math.min(1000, room))
    details[key] = cut
    left = room - Array.from(cut).length
  }
  return details
}

const tagsOf = (event: NotificationEvent): Array<string> => {
  const tags = ["status-page", event.event.replace(".", "-")]
  if (event.event.startsWith("monitor.") && "type" in event.data) tags.push(`check-${event.data.type}`)
  if (event.event.startsWith("incident.") && "severity" in event.data) tags.push(`severity-${event.data.severity}`)
  return tags.slice(0, opsgenieLimits.tags).map((tag) => truncate(tag, opsgenieLimits.tag))
}

/** The body of the create or the close request for `event`. */
export const opsgenie = (event: NotificationEvent, sender: Sender) => {
  const view = present(event, sender)
  const source = truncate(sender.name, opsgenieLimits.source)
  if (resolvesAlert(event)) {
    return {
      source,
      note: truncate([view.title, view.description].filter((t) => t !== "").join("\n"), opsgenieLimits.note)
    }
  }
  const entity = event.event.startsWith("monitor.") && "componentName" in event.data
    ? event.data.componentName
    : undefined
  return {
    message: truncate(view.title, opsgenieLimits.message),
    alias: truncate(onCallKey(event), opsgenieLimits.alias),
    description: truncate(
      [
        view.description,
        ...view.facts.map((fact) => `${fact.label}: ${fact.value}`),
        `Status page: ${sender.url}`
      ].filter((line) => line !== "").join("\n"),
      opsgenieLimits.description
    ),
    details: detailsOf(event),
    priority: priorityOf(event),
    source,
    tags: tagsOf(event),
    ...(entity === undefined ? {} : { entity: truncate(entity, opsgenieLimits.entity) })
  }
}

/** Where the request for `event` goes: the alerts endpoint to create, the alert's close action to close. */
export const opsgenieUrl = (alertsUrl: string, event: NotificationEvent): string => {
  if (!resolvesAlert(event)) return alertsUrl
  const url = new URL(alertsUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${encodeURIComponent(onCallKey(event))}/close`
  url.searchParams.set("identifierType", "alias")
  return url.toString()
}

/** The header that authenticates an Alert API request. */
export const opsgenieAuthorization = (key: string): string => `GenieKey ${key}`
