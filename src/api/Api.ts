/**
 * The whole HTTP API, declared once. The server, the OpenAPI document and the typed
 * client used by tests and the dashboard all derive from it.
 */
import { HttpApi, OpenApi } from "effect/http-api"

import { ApiErrors } from "./ApiErrors.js"
import { ApiKeysApi } from "./ApiKeysApi.js"
import { AuthApi } from "./AuthApi.js"
import { ComponentGroupsApi } from "./ComponentGroupsApi.js"
import { ComponentsApi } from "./ComponentsApi.js"
import { HealthApi } from "./HealthApi.js"
import { IncidentsApi } from "./IncidentsApi.js"
import { IncidentTemplatesApi } from "./IncidentTemplatesApi.js"
import { JsonBodies } from "./JsonBodies.js"
import { MaintenanceApi } from "./MaintenanceApi.js"
import { MonitorsApi } from "./MonitorsApi.js"
import { OrganizationApi } from "./OrganizationApi.js"
import { OverviewApi } from "./OverviewApi.js"
import { ProbesApi } from "./ProbesApi.js"
import { ResponseTimesApi } from "./ResponseTimesApi.js"
import { StatusApi } from "./StatusApi.js"
import { SubscribersApi, SubscriptionsApi } from "./SubscriptionsApi.js"
import { WebhooksApi } from "./WebhooksApi.js"

// Every endpoint takes JSON only (JsonBodies, 415 otherwise); SubscriptionsApi applies it to all
// its endpoints but one-click unsubscribe.
export class Api extends HttpApi.make("status-page")
  .add(HealthApi.middleware(JsonBodies))
  .add(StatusApi.middleware(JsonBodies))
  .add(ComponentsApi.middleware(JsonBodies))
  .add(ComponentGroupsApi.middleware(JsonBodies))
  .add(MonitorsApi.middleware(JsonBodies))
  .add(OrganizationApi.middleware(JsonBodies))
  .add(AuthApi.middleware(JsonBodies))
  .add(ApiKeysApi.middleware(JsonBodies))
  .add(WebhooksApi.middleware(JsonBodies))
  .add(SubscriptionsApi)
  .add(SubscribersApi.middleware(JsonBodies))
  .add(IncidentsApi.middleware(JsonBodies))
  .add(IncidentTemplatesApi.middleware(JsonBodies))
  .add(MaintenanceApi.middleware(JsonBodies))
  .add(ProbesApi.middleware(JsonBodies))
  .add(ResponseTimesApi.middleware(JsonBodies))
  .add(OverviewApi.middleware(JsonBodies))
  // Every endpoint answers a request that does not match its schemas with 400 HttpApiDecodeError.
  // Any endpoint that reaches the database answers 503 while it is away.
  // Any endpoint answers a body it cannot read (not valid JSON) with 400 BadRequest, and one over
  // 1 MB with 413 PayloadTooLarge (src/http/BodyLimit.ts).
  // Node itself answers a request still incomplete at its time-outs with 408, and a request line
  // or headers over 16 KB with 431, in the same error body (src/http/PublicHttpServer.ts).
  // Effect 4 has no API-wide errors: ApiErrors declares them on every endpoint.
  .middleware(ApiErrors)
  .annotate(OpenApi.Title, "Status page service")
  .annotate(
    OpenApi.Description,
    "The API of the status page: a public, read-only side (`/api/v1/status`, subscriptions) and an admin side " +
      "(`/api/v1/admin/*`) that needs an API key or a session.\n\n" +
      "Every error is JSON with `_tag` and `message`. Validation errors are `HttpApiDecodeError` (400) with an " +
      "`issues` array naming each offending `path`; rules a schema cannot check alone are `BadRequest` (400), " +
      "with `issues` too. The API takes JSON only: a body that is not valid JSON is `BadRequest` (400), a body " +
      "of another content type (a form post, plain text) `UnsupportedMediaType` (415), and a body over 1 MB " +
      "`PayloadTooLarge` (413). A request not in within the server's time-outs is `RequestTimeout` (408), one whose " +
      "request line or headers pass 16 KB `RequestHeaderFieldsTooLarge` (431). Any " +
      "endpoint that needs the database answers `ServiceUnavailable` (503) while it is unreachable. Ids are " +
      "opaque strings; timestamps are ISO 8601 UTC ending in `Z`."
  )
{}
