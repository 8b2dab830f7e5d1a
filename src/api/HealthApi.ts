import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { ServiceUnavailable } from "../domain/Errors.js"

export class Health extends Schema.Class<Health>("Health")({ status: Schema.Literal("ok") }) {}

/** Probes for orchestrators: the process is up; the process can reach its database. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("live", "/healthz").addSuccess(Health))
  .add(HttpApiEndpoint.get("ready", "/readyz").addSuccess(Health).addError(ServiceUnavailable))
{}
