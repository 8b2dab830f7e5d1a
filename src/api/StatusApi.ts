import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { PublicComponent } from "../domain/Component.js"
import { StatusSummary } from "../domain/Status.js"
import { UptimeQuery, UptimeRecord } from "../domain/Uptime.js"

/** The public, read-only side: no authentication. */
export class StatusApi extends HttpApiGroup.make("status")
  .add(HttpApiEndpoint.get("summary", "/").addSuccess(StatusSummary))
  .add(HttpApiEndpoint.get("components", "/components").addSuccess(Schema.Array(PublicComponent)))
  .add(HttpApiEndpoint.get("uptime", "/uptime").setUrlParams(UptimeQuery).addSuccess(Schema.Array(UptimeRecord)))
  .prefix("/api/v1/status")
{}
