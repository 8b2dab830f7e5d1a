import { Schema } from "effect"
import { ComponentStatus, PublicComponent } from "./Component.js"

/** GET /status. Incidents and maintenance join the summary with the incidents issue (#4). */
export class StatusSummary extends Schema.Class<StatusSummary>("StatusSummary")({
  status: ComponentStatus,
  components: Schema.Array(PublicComponent),
  activeIncidents: Schema.Tuple(),
  upcomingMaintenance: Schema.Tuple()
}) {}
