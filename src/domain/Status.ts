import { Schema } from "effect"

import { ComponentStatus, PublicComponent } from "./Component.js"
import { PublicComponentGroup } from "./ComponentGroup.js"
import { PublicIncident } from "./Incident.js"
import { PublicMaintenance } from "./Maintenance.js"
import { Class } from "./Named.js"

/**
 * GET /status: unresolved public incidents, newest first; scheduled and running windows, soonest
 * first; the public groups that hold a public component, in display order.
 */
export class StatusSummary extends Class<StatusSummary>("StatusSummary")({
  status: ComponentStatus,
  components: Schema.Array(PublicComponent),
  groups: Schema.Array(PublicComponentGroup),
  activeIncidents: Schema.Array(PublicIncident),
  upcomingMaintenance: Schema.Array(PublicMaintenance)
}) {}
