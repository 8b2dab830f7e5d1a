import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { PublicComponent } from "../domain/Component.js"
import { NotFound, Unauthorized } from "../domain/Errors.js"
import { PublicIncident, PublicIncidentDetail, PublicIncidentsQuery } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { ComponentResponseTimes, ResponseTimesQuery } from "../domain/ResponseTimes.js"
import { StatusSummary } from "../domain/Status.js"
import { UptimeQuery, UptimeRecord } from "../domain/Uptime.js"
import { endpointDocs, groupDocs } from "./Docs.js"

/** The public, read-only side: no authentication; served from the in-memory snapshot. */
export class StatusApi extends HttpApiGroup.make("status")
  .add(
    HttpApiEndpoint.get("summary", "/", { success: StatusSummary, error: Unauthorized })
      .annotateMerge(endpointDocs(
        "Overall status",
        "The public summary: `status`, the public `components`, `activeIncidents` and `upcomingMaintenance`.",
        "`status` is the worst status among the public components, in the order `major_outage` > " +
          "`partial_outage` > `degraded` > `maintenance` > `operational`, and `operational` when there is no " +
          "public component. `activeIncidents` are the unresolved public incidents, newest first, each with its " +
          "latest `message` (no timeline); `upcomingMaintenance` the scheduled and running public windows, " +
          "soonest start first."
      ))
  )
  .add(
    HttpApiEndpoint.get("components", "/components", { success: Schema.Array(PublicComponent), error: Unauthorized })
      .annotateMerge(endpointDocs(
        "Public components",
        "`id`, `name`, `description`, `status` and `displayOrder` of every public component, ordered by " +
          "`displayOrder`, then name. Private components (`isPublic: false`) are never listed."
      ))
  )
  .add(
    HttpApiEndpoint.get("uptime", "/uptime", {
      query: UptimeQuery,
      success: Schema.Array(UptimeRecord),
      error: Unauthorized
    })
      .annotateMerge(endpointDocs(
        "Uptime per public component",
        "One record per public component, in display order, for `period` `24h` (the last 24 UTC hours, " +
          "hourly buckets), `7d`, `30d` or `90d` (the last 7, 30 or 90 UTC days, daily buckets); the default is " +
          "`90d` and any other value is 400. The current, unfinished bucket is included.",
        "`uptimePercentage = 100 × (1 − downtime / observed)`, rounded to three decimals, 100 when nothing was " +
          "observed yet; `observed` runs from the component's creation (or the period's start) up to now. A " +
          "component with monitors counts a moment as down fully when all its monitors are down, at 30 % when " +
          "some are, and not at all during maintenance; one without monitors counts `major_outage` fully, " +
          "`partial_outage` at 30 %, `degraded` and `maintenance` not at all.",
        "Rollups are refreshed every minute, so downtime shows within about two minutes. Each period's answer is " +
          "kept in memory for up to 5 s, with an `ETag` (304 on a matching `If-None-Match`) and " +
          "`Cache-Control: public, max-age=5`."
      ))
  )
  .add(
    HttpApiEndpoint.get("responseTimes", "/components/:id/response-times", {
      params: Schema.Struct({ id: Schema.String }),
      query: ResponseTimesQuery,
      success: ComponentResponseTimes,
      error: [NotFound, Unauthorized]
    })
      .annotateMerge(endpointDocs(
        "Response times of a public component, by region",
        "`{ componentId, period, regions: [{ region, points: [{ at, count, p50Ms, p95Ms, p99Ms, meanMs, dnsMs, " +
          "connectMs, tlsMs, firstByteMs }] }] }` for `period` `24h` (hourly points, the last 24 UTC hours), `7d` " +
          "(hourly, the last 168 hours) or `30d` (daily, the last 30 UTC days); the default is `24h` and any other " +
          "value is 400. The current, unfinished bucket is included. `at` is the start of the hour or day; only " +
          "buckets with checks have a point; regions are sorted by name, points oldest first.",
        "Only successful checks count. `count` is how many were measured; `p50Ms`, `p95Ms` and `p99Ms` are " +
          "percentiles of their durations from histograms kept per hour and day (within 4.5 % of the exact value " +
          "from 1 ms up), `meanMs` their mean, and `dnsMs`, `connectMs`, `tlsMs`, `firstByteMs` the mean time of " +
          "each phase over the checks that went through it (null when none did). A component with several " +
          "monitors has their checks together. A private or unknown id is **404**.",
        "Each answer is kept in memory for up to 5 s, with an `ETag` (304 on a matching `If-None-Match`) and " +
          "`Cache-Control: public, max-age=5`."
      ))
  )
  .add(
    HttpApiEndpoint.get("incidents", "/incidents", {
      query: PublicIncidentsQuery,
      success: Schema.Array(PublicIncident),
      error: Unauthorized
    })
      .annotateMerge(endpointDocs(
        "Public incidents, paged",
        "Public incidents, newest first, without their timelines; `message` is the latest timeline entry's. " +
          "`limit` is 1–100 (default 20), `offset` an integer >= 0 (default 0; past the last incident the page " +
          "is empty) and `status` one of `investigating`, `identified`, `monitoring`, `resolved` to filter on; " +
          "an invalid value of any of them is 400.",
        "The first 100 incidents of any listing (`offset` + `limit` <= 100) are served from memory; older pages " +
          "are read from the database per request, with the same JSON and ETag (503 while it is unreachable)."
      ))
  )
  .add(
    HttpApiEndpoint.get("incident", "/incidents/:id", {
      params: Schema.Struct({ id: Schema.String }),
      success: PublicIncidentDetail,
      error: [NotFound, Unauthorized]
    })
      .annotateMerge(endpointDocs(
        "One public incident with its timeline",
        "The incident as listed, plus `updates`: the whole timeline, oldest first, each `{ id, status, message, " +
          "createdAt }`. A private or unknown id is **404**, so the answer does not tell whether a private " +
          "incident exists."
      ))
  )
  .add(
    HttpApiEndpoint.get("maintenance", "/maintenance", {
      success: Schema.Array(PublicMaintenance),
      error: Unauthorized
    })
      .annotateMerge(endpointDocs(
        "Upcoming and running public maintenance",
        "The scheduled and running (`in_progress`) public maintenance windows, soonest start first: the same " +
          "list as the summary's `upcomingMaintenance`. Completed and cancelled windows are not listed; each " +
          "window names only its public components."
      ))
  )
  .add(
    HttpApiEndpoint.get("rss", "/rss", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/rss+xml" })),
      error: Unauthorized
    })
      .annotateMerge(endpointDocs(
        "RSS 2.0 feed",
        "The 50 most recent public incidents and maintenance windows that are not cancelled, as RSS 2.0 " +
          "(`application/rss+xml`). An item's link and guid is its public page, `{PUBLIC_URL}/incidents/{id}` or " +
          "`{PUBLIC_URL}/maintenance/{id}`, and never changes; its text is the latest update (`status: message`) " +
          "or the window's schedule. The channel title is the organization's name."
      ))
  )
  .add(
    HttpApiEndpoint.get("atom", "/atom", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/atom+xml" })),
      error: Unauthorized
    })
      .annotateMerge(endpointDocs(
        "Atom feed",
        "The same items as the RSS feed (the 50 most recent public incidents and non-cancelled maintenance " +
          "windows) as an Atom feed (`application/atom+xml`), each entry's id and link being its public page."
      ))
  )
  .prefix("/api/v1/status")
  .annotateMerge(groupDocs(
    "The public, read-only API for the people reading the status page: no authentication. It answers for the " +
      "default page, or for the page whose `domain` is the request's host (a protected one answers **401** " +
      "without its reader's access cookie); `/p/{slug}/api/v1/status` answers for any page.",
    "Only public components appear. An incident or maintenance window is public only when an administrator " +
      "made it so: named no component or a public one when creating it or setting its `componentIds`, or " +
      "showed a component it names. Deleting or hiding a component never makes anything public. A public " +
      "item names only its public components.",
    "Answers come from an in-memory snapshot of the public state, rebuilt after every committed change (an " +
      "admin write answers once its own instance's snapshot includes it). They carry an `ETag` and " +
      "`Cache-Control: public, max-age=5`, answer **304** to a matching `If-None-Match`, and are gzipped for " +
      "clients that accept it when 1 kB or more. While the database is unreachable the last snapshot keeps " +
      "being served; only an instance that never built one answers 503."
  ))
{}
