/**
 * The whole HTTP API, declared once. The server, the OpenAPI document and the typed
 * client used by tests and the dashboard all derive from it.
 */
import { HttpApi, OpenApi } from "effect/http-api"

import { ApiErrors, strictParseOptions, strictQueries } from "./ApiErrors.js"
import { ApiKeysApi } from "./ApiKeysApi.js"
import { AuditLogApi } from "./AuditLogApi.js"
import { AuthApi } from "./AuthApi.js"
import { BackupApi } from "./BackupApi.js"
import { ComponentGroupsApi } from "./ComponentGroupsApi.js"
import { ComponentsApi } from "./ComponentsApi.js"
import { ConfigurationApi } from "./ConfigurationApi.js"
import { ConfigurationSchemaApi } from "./ConfigurationSchemaApi.js"
import { EventsApi } from "./EventsApi.js"
import { HealthApi } from "./HealthApi.js"
import { idempotentPosts } from "./Idempotency.js"
import { IncidentsApi } from "./IncidentsApi.js"
import { IncidentTemplatesApi } from "./IncidentTemplatesApi.js"
import { JsonBodies } from "./JsonBodies.js"
import { MaintenanceApi } from "./MaintenanceApi.js"
import { MonitorsApi } from "./MonitorsApi.js"
import { openApiDocument } from "./OpenApiDocument.js"
import { OrganizationApi } from "./OrganizationApi.js"
import { OverviewApi } from "./OverviewApi.js"
import { PageStatusApi } from "./PageStatusApi.js"
import { conditional } from "./Preconditions.js"
import { ProbesApi } from "./ProbesApi.js"
import { PushApi } from "./PushApi.js"
import { ResponseTimesApi } from "./ResponseTimesApi.js"
import { StatusApi } from "./StatusApi.js"
import { StatusPagesApi } from "./StatusPagesApi.js"
import { SubscribersApi, SubscriptionsApi } from "./SubscriptionsApi.js"
import { TeamApi } from "./TeamApi.js"
import { WebhooksApi } from "./WebhooksApi.js"

// Every endpoint takes JSON only (JsonBodies, 415 otherwise); SubscriptionsApi applies it to all
// its endpoints but one-click unsubscribe. Every admin POST takes an Idempotency-Key (idempotentPosts).
// A write on one admin resource honours If-Match, and a read or write of one answers its ETag
// (conditional).
export class Api extends HttpApi.make("status-page")
  .add(HealthApi.middleware(JsonBodies))
  .add(StatusApi.middleware(JsonBodies))
  .add(PageStatusApi.middleware(JsonBodies))
  .add(conditional(idempotentPosts(ComponentsApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(ComponentGroupsApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(StatusPagesApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(MonitorsApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(OrganizationApi)).middleware(JsonBodies))
  .add(AuthApi.middleware(JsonBodies))
  .add(conditional(idempotentPosts(ApiKeysApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(WebhooksApi)).middleware(JsonBodies))
  .add(SubscriptionsApi)
  .add(conditional(idempotentPosts(SubscribersApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(IncidentsApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(IncidentTemplatesApi)).middleware(JsonBodies))
  .add(conditional(idempotentPosts(MaintenanceApi)).middleware(JsonBodies))
  .add(idempotentPosts(ProbesApi).middleware(JsonBodies))
  .add(idempotentPosts(ResponseTimesApi).middleware(JsonBodies))
  .add(idempotentPosts(OverviewApi).middleware(JsonBodies))
  .add(idempotentPosts(TeamApi).middleware(JsonBodies))
  .add(AuditLogApi.middleware(JsonBodies))
  .add(EventsApi.middleware(JsonBodies))
  .add(PushApi)
  .add(BackupApi.middleware(JsonBodies))
  .add(idempotentPosts(ConfigurationApi).middleware(JsonBodies))
  .add(ConfigurationSchemaApi.middleware(JsonBodies))
  // Every endpoint answers a request that does not match its schemas with 400 HttpApiDecodeError.
  // Any endpoint that reaches the database answers 503 while it is away.
  // Any endpoint answers a body it cannot read (not valid JSON) with 400 BadRequest, and one over
  // 1 MB with 413 PayloadTooLarge (src/http/BodyLimit.ts).
  // Node itself answers a request still incomplete at its time-outs with 408, and a request line
  // or headers over 16 KB with 431, in the same error body (src/http/PublicHttpServer.ts).
  // Effect 4 has no API-wide errors: ApiErrors declares them on every endpoint.
  .middleware(ApiErrors)
  // A body field or query parameter the endpoint does not declare is 400, not dropped; headers
  // stay lenient. StrictQuery refuses a query on the endpoints that declare none.
  .pipe(strictQueries)
  .annotate(HttpApi.PayloadParseOptions, strictParseOptions)
  .annotate(HttpApi.QueryParseOptions, strictParseOptions)
  .annotate(OpenApi.Title, "Status page service")
  .annotate(
    OpenApi.Description,
    "The API of the status page: a public, read-only side (`/api/v1/status`, subscriptions) and an admin side " +
      "(`/api/v1/admin/*`) that needs an API key or a session.\n\n" +
      "Every error is JSON with `_tag` and `message`, one sentence for people. Validation errors are " +
      "`HttpApiDecodeError` (400) with an `issues` array, one entry per offending field: its `path` and what was " +
      "expected there (`{ \"path\": [\"status\"], \"message\": \"must be one of operational, degraded, …\" }`); " +
      "rules a schema cannot check alone are `BadRequest` (400), with `issues` too. A body field or query " +
      "parameter the endpoint does not declare, at any depth, is refused (400, \"is not a known field (did you " +
      "mean isPublic?)\"), on every endpoint under `/api/v1` but the feeds; headers are not checked. The API " +
      "takes JSON only: a body that is not valid JSON is `BadRequest` (400), a body " +
      "of another content type (a form post, plain text) `UnsupportedMediaType` (415), and a body over 1 MB " +
      "`PayloadTooLarge` (413). A request not in within the server's time-outs is `RequestTimeout` (408), one whose " +
      "request line or headers pass 16 KB `RequestHeaderFieldsTooLarge` (431). Any " +
      "endpoint that needs the database answers `ServiceUnavailable` (503) while it is unreachable. Ids are " +
      "opaque strings; timestamps are ISO 8601 UTC ending in `Z`."
  )
  // Version, servers, response headers and integer query parameters (docs/api.md, "The OpenAPI document").
  .pipe(openApiDocument)
{}
