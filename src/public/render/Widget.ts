/**
 * The JSON a third-party page embeds: the overall state in words (in the page's language),
 * components, and what is going on, with links to the page's own addresses.
 */
import { Schema } from "effect"

import { ComponentStatus } from "../../domain/Component.js"
import { IncidentStatus } from "../../domain/Incident.js"
import type { Locale } from "../../domain/Locale.js"
import { MaintenanceStatus } from "../../domain/Maintenance.js"
import { messagesFor } from "../../i18n/Messages.js"
import type { PublicState } from "../state/PublicStatus.js"

export class Widget extends Schema.Class<Widget>("Widget")({
  name: Schema.String,
  url: Schema.String,
  status: ComponentStatus,
  description: Schema.String,
  components: Schema.Array(
    Schema.Struct({ id: Schema.String, name: Schema.String, status: ComponentStatus, description: Schema.String })
  ),
  activeIncidents: Schema.Array(
    Schema.Struct({ id: Schema.String, title: Schema.String, status: IncidentStatus, url: Schema.String })
  ),
  maintenance: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      title: Schema.String,
      status: MaintenanceStatus,
      scheduledStart: Schema.DateTimeUtcFromString,
      scheduledEnd: Schema.DateTimeUtcFromString,
      url: Schema.String
    })
  )
}) {}

/** `pageUrl`: the page's absolute address (no trailing slash), which its links start with. */
export const widget = (state: PublicState, pageUrl: string, locale: Locale) => {
  const m = messagesFor(locale)
  return JSON.stringify(
    Schema.encodeSync(Widget)(
      new Widget({
        name: state.organization.name,
        url: pageUrl,
        status: state.summary.status,
        description: m.status.overall[state.summary.status],
        components: state.components.map(({ id, name, status }) => ({
          id,
          name,
          status,
          description: m.status.component[status]
        })),
        activeIncidents: state.summary.activeIncidents.map(({ id, status, title }) => ({
          id,
          title,
          status,
          url: `${pageUrl}/incidents/${encodeURIComponent(id)}`
        })),
        maintenance: state.summary.upcomingMaintenance.map(({ id, scheduledEnd, scheduledStart, status, title }) => ({
          id,
          title,
          status,
          scheduledStart,
          scheduledEnd,
          url: `${pageUrl}/maintenance/${encodeURIComponent(id)}`
        }))
      })
    )
  )
}
