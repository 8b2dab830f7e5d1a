/** The JSON a third-party page embeds: the overall state in words, components, and what is going on. */
import { Schema } from "effect"

import { ComponentStatus } from "../../domain/Component.js"
import { IncidentStatus } from "../../domain/Incident.js"
import { MaintenanceStatus } from "../../domain/Maintenance.js"
import { componentStatusLabel, overallLabel } from "../../web/Labels.js"
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

export const widget = (state: PublicState, publicUrl: string) =>
  JSON.stringify(
    Schema.encodeSync(Widget)(
      new Widget({
        name: state.organization.name,
        url: publicUrl,
        status: state.summary.status,
        description: overallLabel[state.summary.status],
        components: state.components.map(({ id, name, status }) => ({
          id,
          name,
          status,
          description: componentStatusLabel[status]
        })),
        activeIncidents: state.summary.activeIncidents.map(({ id, status, title }) => ({
          id,
          title,
          status,
          url: `${publicUrl}/incidents/${encodeURIComponent(id)}`
        })),
        maintenance: state.summary.upcomingMaintenance.map(({ id, scheduledEnd, scheduledStart, status, title }) => ({
          id,
          title,
          status,
          scheduledStart,
          scheduledEnd,
          url: `${publicUrl}/maintenance/${encodeURIComponent(id)}`
        }))
      })
    )
  )
