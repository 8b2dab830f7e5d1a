/**
 * The whole HTTP API, declared once. The server, the OpenAPI document and the typed
 * client used by tests and the dashboard all derive from it.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { BadRequest, ServiceUnavailable } from "../domain/Errors.js"
import { ApiKeysApi } from "./ApiKeysApi.js"
import { AuthApi } from "./AuthApi.js"
import { ComponentsApi } from "./ComponentsApi.js"
import { HealthApi } from "./HealthApi.js"
import { MonitorsApi } from "./MonitorsApi.js"
import { IncidentsApi } from "./IncidentsApi.js"
import { MaintenanceApi } from "./MaintenanceApi.js"
import { OrganizationApi } from "./OrganizationApi.js"
import { StatusApi } from "./StatusApi.js"
import { SubscribersApi, SubscriptionsApi } from "./SubscriptionsApi.js"
import { WebhooksApi } from "./WebhooksApi.js"

export class Api extends HttpApi.make("status-page")
  .add(HealthApi)
  .add(StatusApi)
  .add(ComponentsApi)
  .add(MonitorsApi)
  .add(OrganizationApi)
  .add(AuthApi)
  .add(ApiKeysApi)
  .add(WebhooksApi)
  .add(SubscriptionsApi)
  .add(SubscribersApi)
  .add(IncidentsApi)
  .add(MaintenanceApi)
  // Any endpoint that reaches the database answers 503 while it is away.
  .addError(ServiceUnavailable)
  // Any endpoint answers a body it cannot read (not JSON, a broken multipart form) with 400 BadRequest.
  .addError(BadRequest)
  .annotate(OpenApi.Title, "Status page service")
{}
