import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { ServiceUnavailable } from "../domain/Errors.js"
import { Class } from "../domain/Named.js"
import { endpointDocs, groupDocs } from "./Docs.js"

export class Health extends Class<Health>("Health")({ status: Schema.Literal("ok") }) {}

/** Probes for orchestrators: the process is up; the process can reach its database. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/healthz", { success: Health })
      .annotateMerge(endpointDocs(
        "Liveness probe",
        "Answers `{ \"status\": \"ok\" }` while the process is up and serving HTTP. It touches nothing else, " +
          "so it stays 200 while the database is away. No authentication."
      ))
  )
  .add(
    HttpApiEndpoint.get("ready", "/readyz", { success: Health, error: ServiceUnavailable })
      .annotateMerge(endpointDocs(
        "Readiness probe",
        "Answers `{ \"status\": \"ok\" }` when the database answers a trivial query within 2 seconds, " +
          "and **503** `ServiceUnavailable` otherwise. No authentication."
      ))
  )
  .annotateMerge(groupDocs(
    "Probes for orchestrators (Kubernetes, Docker, load balancers): `/healthz` says the process is up, " +
      "`/readyz` that it can reach its database. Neither needs authentication."
  ))
{}
