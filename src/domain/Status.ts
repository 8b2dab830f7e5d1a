import { Schema } from "effect"

import { ComponentStatus, PublicComponent } from "./Component.js"
import { PublicIncident } from "./Incident.js"
import { PublicMaintenance } from "./Maintenance.js"

/** GET /status: unresolved public incidents, newest first; scheduled and running windows, soonest first. */
export class StatusSummary extends Schema.Class<StatusSummary>("StatusSummary")({
  status: ComponentStatus,
  components: Schema.Array(PublicComponent),
  activeIncidents: Schema.Array(PublicIncident),
  upcomingMaintenance: Schema.Array(PublicMaintenance)
}) {}
