import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { ProbeView } from "../domain/Probe.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

export class ProbesApi extends HttpApiGroup.make("probes")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(ProbeView) })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List probe agents",
        "Every probe that sent a heartbeat in the last 7 days (at most 200 per region; the list stops at 5,000), " +
          "sorted by `region` then `name`: `name`, `region` " +
          "(the region whose results stream its heartbeats came on), `version`, `startedAt`, `lastSeenAt` (when " +
          "the server last received its heartbeat, by the server's clock), `online`, `checksLastMinute`, " +
          "`concurrency`, `lagMs` (average delay between a job's scheduled time and its start over the last " +
          "minute) and `inFlight`.",
        "Probes send a heartbeat every 10 seconds; `online` is false once the last one is more than 30 seconds " +
          "old. A region whose probes are all offline is \"no data\" for quorum, not a failing region.",
        pagedList(adminPageBounds)
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/probes")
  .annotateMerge(groupDocs(
    "The probe registry: the probe agents and what their heartbeats say (admin; an API key or a session is " +
      "required, else 401)."
  ))
{}
