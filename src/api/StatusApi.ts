import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { PublicComponent } from "../domain/Component.js"
import { StatusSummary } from "../domain/Status.js"

/** The public, read-only side: no authentication. */
export class StatusApi extends HttpApiGroup.make("status")
  .add(HttpApiEndpoint.get("summary", "/").addSuccess(StatusSummary))
  .add(HttpApiEndpoint.get("components", "/components").addSuccess(Schema.Array(PublicComponent)))
  .prefix("/api/v1/status")
{}
