import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

import { ServiceUnavailable } from "../domain/Errors.js"
import { endpointDocs, groupDocs } from "./Docs.js"

export class Health extends Schema.Class<Health>("Health")({ status: Schema.Literal("ok") }) {}

/** Probes for orchestrators: the process is up; the process can reach its database. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/healthz")
      .addSuccess(Health)
      .annotateContext(endpointDocs(
        "Liveness probe",
        "Answers `{ \"status\": \"ok\" }` while the process is up and serving HTTP. It touches nothing else, " +
          "so it stays 200 while the database is away. No authentication."
      ))
  )
  .add(
    HttpApiEndpoint.get("ready", "/readyz")
      .addSuccess(Health)
      .addError(ServiceUnavailable)
      .annotateContext(endpointDocs(
        "Readiness probe",
        "Answers `{ \"status\": \"ok\" }` when the database answers a trivial query within 2 seconds, " +
          "and **503** `ServiceUnavailable` otherwise. No authentication."
      ))
  )
  .annotateContext(groupDocs(
    "Probes for orchestrators (Kubernetes, Docker, load balancers): `/healthz` says the process is up, " +
      "`/readyz` that it can reach its database. Neither needs authentication."
  ))
{}
