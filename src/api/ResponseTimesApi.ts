import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { NotFound } from "../domain/Errors.js"
import { MonitorId } from "../domain/Monitor.js"
import { MonitorResponseTimes, ResponseTimesQuery } from "../domain/ResponseTimes.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export class ResponseTimesApi extends HttpApiGroup.make("responseTimes")
  .add(
    HttpApiEndpoint.get("ofMonitor", "/:id/response-times", {
      params: Schema.Struct({ id: MonitorId }),
      query: ResponseTimesQuery,
      success: MonitorResponseTimes,
      error: NotFound
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Response times of a monitor, by region",
        "`{ monitorId, period, regions: [{ region, points: [...] }] }`, the points as in the public " +
          "`/api/v1/status/components/{id}/response-times` (hourly for `24h` and `7d`, daily for `30d`; default " +
          "`24h`, any other value 400), for any monitor, whether its component is public or not. An unknown id " +
          "is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/monitors")
  .annotateMerge(groupDocs(
    "Response times by region of each monitor, from the hourly and daily rollups (admin; an API key or a session " +
      "is required, else 401)."
  ))
{}
