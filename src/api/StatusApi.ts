import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { PublicComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { PublicIncident, PublicIncidentDetail, PublicIncidentsQuery } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { StatusSummary } from "../domain/Status.js"
import { UptimeQuery, UptimeRecord } from "../domain/Uptime.js"

/** The public, read-only side: no authentication; served from the in-memory snapshot. */
export class StatusApi extends HttpApiGroup.make("status")
  .add(HttpApiEndpoint.get("summary", "/").addSuccess(StatusSummary))
  .add(HttpApiEndpoint.get("components", "/components").addSuccess(Schema.Array(PublicComponent)))
  .add(HttpApiEndpoint.get("uptime", "/uptime").setUrlParams(UptimeQuery).addSuccess(Schema.Array(UptimeRecord)))
  .add(HttpApiEndpoint.get("incidents", "/incidents").setUrlParams(PublicIncidentsQuery).addSuccess(Schema.Array(PublicIncident)))
  .add(
    HttpApiEndpoint.get("incident", "/incidents/:id")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(PublicIncidentDetail)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("maintenance", "/maintenance").addSuccess(Schema.Array(PublicMaintenance)))
  .add(HttpApiEndpoint.get("rss", "/rss").addSuccess(HttpApiSchema.Text({ contentType: "application/rss+xml" })))
  .add(HttpApiEndpoint.get("atom", "/atom").addSuccess(HttpApiSchema.Text({ contentType: "application/atom+xml" })))
  .prefix("/api/v1/status")
{}
