import { Duration } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { mailBackingUpAfter, overviewLimits, OverviewReport } from "../domain/Overview.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export class OverviewApi extends HttpApiGroup.make("overview")
  .add(
    HttpApiEndpoint.get("get", "/", { success: OverviewReport })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "What is wrong now",
        "One answer for the dashboard's first screen and for automation: `monitors` down or degraded (down " +
          "first), each with `since` and the `regions` whose last check failed (`failing`) or was slower than " +
          "its `degradedAboveMs` (`slow`), with that region's `lastError`; unresolved `incidents`, newest first; " +
          "`probes`: the regions with a probe silent for more than 30 s (`regionOffline` when none of the region " +
          "is online, so quorum treats it as no data); active `webhooks` that gave up deliveries since their last " +
          "success (`consecutiveFailures`) or are retrying some (`retrying`), with the latest failed attempt's " +
          "error; and `mail` waiting to be sent.",
        `The lists hold at most ${overviewLimits.monitors} monitors, ${overviewLimits.incidents} incidents, ` +
          `${overviewLimits.webhooks} webhooks and ${overviewLimits.probesPerRegion} offline probes per region; ` +
          "`counts` has the totals. `mail.backingUp` is true when a mail waits for a retry or the oldest waiting " +
          `mail is older than ${Duration.toSeconds(mailBackingUpAfter)} s. ` +
          "`allClear` is true when every list is empty and mail is not backing up."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/overview")
  .annotateMerge(groupDocs(
    "The operators' overview (admin; an API key or a session is required, else 401): monitors down or " +
      "degraded, open incidents, probes offline, webhooks failing and mail backing up, in one request."
  ))
{}
