import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { PublicComponent } from "../domain/Component.js"
import { NotFound, Unauthorized } from "../domain/Errors.js"
import { PublicIncident, PublicIncidentDetail, PublicIncidentsQuery } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { ComponentResponseTimes, ResponseTimesQuery } from "../domain/ResponseTimes.js"
import { StatusSummary } from "../domain/Status.js"
import { Slug } from "../domain/StatusPage.js"
import { UptimeQuery, UptimeRecord } from "../domain/Uptime.js"
import { endpointDocs, groupDocs } from "./Docs.js"

/** The reads of `/api/v1/status` for one page: an unknown slug is 404, a protected page without access 401. */
const errors = [NotFound, Unauthorized] as const
const Page = Schema.Struct({ slug: Slug })
const PageAndId = Schema.Struct({ slug: Slug, id: Schema.String })

const sameAs = (path: string, more = "") =>
  `As \`GET /api/v1/status${path}\`, for the page \`slug\`: only the components it shows, the incidents and ` +
  `maintenance naming one of them (and, on the default page, those naming none).${more}`

/** The public reads of every status page, under `/p/{slug}/api/v1/status` (docs/public-page.md, "Pages"). */
export class PageStatusApi extends HttpApiGroup.make("pageStatus")
  .add(
    HttpApiEndpoint.get("summary", "/", { params: Page, success: StatusSummary, error: errors })
      .annotateMerge(endpointDocs("A page's overall status", sameAs("", " `status` is the worst of its components'.")))
  )
  .add(
    HttpApiEndpoint.get("components", "/components", {
      params: Page,
      success: Schema.Array(PublicComponent),
      error: errors
    }).annotateMerge(endpointDocs("A page's components", sameAs("/components", " In the page's order.")))
  )
  .add(
    HttpApiEndpoint.get("uptime", "/uptime", {
      params: Page,
      query: UptimeQuery,
      success: Schema.Array(UptimeRecord),
      error: errors
    }).annotateMerge(endpointDocs("Uptime of a page's components", sameAs("/uptime")))
  )
  .add(
    HttpApiEndpoint.get("responseTimes", "/components/:id/response-times", {
      params: PageAndId,
      query: ResponseTimesQuery,
      success: ComponentResponseTimes,
      error: errors
    }).annotateMerge(endpointDocs(
      "Response times of one of a page's components",
      sameAs("/components/{id}/response-times", " A component the page does not show is 404.")
    ))
  )
  .add(
    HttpApiEndpoint.get("incidents", "/incidents", {
      params: Page,
      query: PublicIncidentsQuery,
      success: Schema.Array(PublicIncident),
      error: errors
    }).annotateMerge(endpointDocs("A page's incidents, paged", sameAs("/incidents")))
  )
  .add(
    HttpApiEndpoint.get("incident", "/incidents/:id", {
      params: PageAndId,
      success: PublicIncidentDetail,
      error: errors
    })
      .annotateMerge(endpointDocs(
        "One of a page's incidents with its timeline",
        sameAs("/incidents/{id}", " An incident the page does not show is 404.")
      ))
  )
  .add(
    HttpApiEndpoint.get("maintenance", "/maintenance", {
      params: Page,
      success: Schema.Array(PublicMaintenance),
      error: errors
    }).annotateMerge(endpointDocs("A page's upcoming and running maintenance", sameAs("/maintenance")))
  )
  .add(
    HttpApiEndpoint.get("rss", "/rss", {
      params: Page,
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/rss+xml" })),
      error: errors
    }).annotateMerge(endpointDocs(
      "A page's RSS 2.0 feed",
      sameAs("/rss", " Links go to the page's own address; the feed's words are in the page's language.")
    ))
  )
  .add(
    HttpApiEndpoint.get("atom", "/atom", {
      params: Page,
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/atom+xml" })),
      error: errors
    }).annotateMerge(endpointDocs("A page's Atom feed", sameAs("/atom")))
  )
  .prefix("/p/:slug/api/v1/status")
  .annotateMerge(groupDocs(
    "The public reads of each status page, by its `slug`: the same answers as `/api/v1/status`, for what that " +
      "page shows. `/api/v1/status` itself answers for the default page, or for the page whose `domain` is the " +
      "request's host.",
    "A protected page answers **401** `Unauthorized` to a reader without its access cookie (set by entering " +
      "the page's password at `/p/{slug}/access`), and its answers are `Cache-Control: private, no-cache`."
  ))
{}
