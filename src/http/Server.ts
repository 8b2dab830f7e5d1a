/**
 * The HTTP side: the HttpApi handlers, OpenAPI document at /api/v1/openapi.json, its
 * Swagger page at /docs, the admin dashboard at /admin and the public status page at /. Needs an HttpServer and a migrated database.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { PageVisits } from "../public/PageVisits.js"
import { PublicPages } from "../public/PublicPages.js"
import { PublicResponseTimes } from "../public/PublicResponseTimes.js"
import { PublicRoutes } from "../public/PublicRoutes.js"
import { PublicUptime } from "../public/PublicUptime.js"
import { SnapshotResponses } from "../public/SnapshotResponses.js"
import { PublicSnapshot } from "../public/state/PublicSnapshot.js"
import { PageStatusHttp, StatusHttp } from "../public/StatusHttp.js"
import { StatuspageResponses } from "../public/StatuspageResponses.js"
import { StatuspageRoutes } from "../public/StatuspageRoutes.js"
import { AppConfig } from "../runtime/Config.js"
import { AuditTrail } from "../services/audit/AuditTrail.js"
import { Administrators } from "../services/auth/Administrators.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { Sessions } from "../services/auth/Sessions.js"
import { ComponentGroups } from "../services/catalog/ComponentGroups.js"
import { Components } from "../services/catalog/Components.js"
import { Incidents } from "../services/catalog/Incidents.js"
import { IncidentTemplates } from "../services/catalog/IncidentTemplates.js"
import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"
import { OrganizationProfile } from "../services/catalog/OrganizationProfile.js"
import { PageAccess } from "../services/catalog/PageAccess.js"
import { StatusPages } from "../services/catalog/StatusPages.js"
import { ConfigurationApply } from "../services/configuration/ConfigurationApply.js"
import { ConfigurationExport } from "../services/configuration/ConfigurationExport.js"
import { Imports } from "../services/configuration/Imports.js"
import { Monitors } from "../services/monitoring/Monitors.js"
import { ProbeRegistry } from "../services/monitoring/ProbeRegistry.js"
import { PushReceiver } from "../services/monitoring/PushReceiver.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { Subscriptions } from "../services/notifications/Subscriptions.js"
import { Webhooks } from "../services/notifications/webhooks/Webhooks.js"
import { Backups } from "../services/operations/Backups.js"
import { Overview } from "../services/operations/Overview.js"
import { Invitations } from "../services/team/Invitations.js"
import { OwnAccount } from "../services/team/OwnAccount.js"
import { TeamMembers } from "../services/team/TeamMembers.js"
import { AdminRoutes } from "../web/admin/AdminRoutes.js"
import { apiDocsPolicy } from "./ApiDocsPolicy.js"
import { ApiDocsRoute } from "./ApiDocsRoute.js"
import { ApiErrorsLive, StrictQueryLive } from "./ApiErrors.js"
import { ApiKeysHttp } from "./ApiKeysHttp.js"
import { AuditLogHttp } from "./AuditLogHttp.js"
import { AuthenticationLive } from "./Authentication.js"
import { AuthHttp } from "./AuthHttp.js"
import { BackupHttp } from "./BackupHttp.js"
import { bodyLimit } from "./BodyLimit.js"
import { clientAddressMiddleware, type TrustedProxies } from "./ClientAddress.js"
import { ComponentGroupsHttp } from "./ComponentGroupsHttp.js"
import { ComponentsHttp } from "./ComponentsHttp.js"
import { ConfigurationHttp, ConfigurationSchemaHttp } from "./ConfigurationHttp.js"
import { errorBodies } from "./ErrorBodies.js"
import { EventsHttp, LiveEvents } from "./EventsHttp.js"
import { HealthHttp } from "./HealthHttp.js"
import { IdempotencyLive } from "./IdempotencyLive.js"
import { IncidentsHttp } from "./IncidentsHttp.js"
import { IncidentTemplatesHttp } from "./IncidentTemplatesHttp.js"
import { JsonBodiesLive } from "./JsonBodies.js"
import { MaintenanceHttp } from "./MaintenanceHttp.js"
import { httpMetrics, MetricsRoute } from "./MetricsHttp.js"
import { MonitorsHttp } from "./MonitorsHttp.js"
import { OrganizationHttp } from "./OrganizationHttp.js"
import { OverviewHttp } from "./OverviewHttp.js"
import { PreconditionsLive } from "./PreconditionsLive.js"
import { ProbesHttp } from "./ProbesHttp.js"
import { PushHttp } from "./PushHttp.js"
import { requestLogger } from "./RequestLog.js"
import { redactRequestSpan } from "./RequestSpan.js"
import { ResponseTimesHttp } from "./ResponseTimesHttp.js"
import { StatusPagesHttp } from "./StatusPagesHttp.js"
import { SubscribersHttp, SubscriptionsHttp } from "./SubscriptionsHttp.js"
import { TeamHttp } from "./TeamHttp.js"
import { WebhooksHttp } from "./WebhooksHttp.js"

const FirstAdministrator = Layer.effectDiscard(
  Effect.flatMap(Administrators, (admins) => admins.ensureFirstAdministrator())
)

/**
 * The services behind the handlers. HttpRouter.serve builds the routes in a fork of the layer
 * memo map, where a service built for them is not shared with the layers built beside the server
 * (the workers of a process running several roles, a test's stack): HttpLive builds these first,
 * outside the fork, so the routes and their neighbours share one of each.
 */
const ApiServices = Layer.mergeAll(
  Components.layer,
  ComponentGroups.layer,
  StatusPages.layer,
  Monitors.layer,
  PublicSnapshot.layer,
  PageAccess.layer,
  PageVisits.layer,
  SnapshotResponses.layer,
  PublicUptime.layer,
  PublicResponseTimes.layer,
  ResponseTimes.layer,
  OrganizationProfile.layer,
  Incidents.layer,
  IncidentTemplates.layer,
  MaintenanceWindows.layer,
  Administrators.layer,
  ApiKeys.layer,
  Sessions.layer,
  AuditTrail.layer,
  Webhooks.layer,
  Subscriptions.layer,
  ProbeRegistry.layer,
  Overview.layer,
  TeamMembers.layer,
  Invitations.layer,
  OwnAccount.layer,
  LiveEvents.layer,
  PushReceiver.layer,
  Backups.layer,
  ConfigurationExport.layer,
  ConfigurationApply.layer,
  Imports.layer
)

/**
 * Every group's handlers with the middleware and services they need, over a migrated database.
 * At run time they add their routes to the shared router, so apps that mount our groups under an
 * HttpApi of their own use them too (apiGroupsFor).
 */
export const ApiHandlers = Layer.mergeAll(
  FirstAdministrator,
  HealthHttp,
  StatusHttp,
  PageStatusHttp,
  ComponentsHttp,
  ComponentGroupsHttp,
  StatusPagesHttp,
  MonitorsHttp,
  OrganizationHttp,
  AuthHttp,
  ApiKeysHttp,
  IncidentsHttp,
  IncidentTemplatesHttp,
  MaintenanceHttp,
  WebhooksHttp,
  SubscriptionsHttp,
  SubscribersHttp,
  ProbesHttp,
  OverviewHttp,
  ResponseTimesHttp,
  AuditLogHttp,
  TeamHttp,
  EventsHttp,
  PushHttp,
  BackupHttp,
  ConfigurationHttp,
  ConfigurationSchemaHttp
).pipe(
  Layer.provide([
    AuthenticationLive,
    JsonBodiesLive,
    ApiErrorsLive,
    StrictQueryLive,
    IdempotencyLive,
    PreconditionsLive
  ]),
  Layer.provide(ApiServices)
)

/** The API's routes, with its OpenAPI document at /api/v1/openapi.json. */
const ApiLive = HttpApiBuilder.layer(Api, { openapiPath: "/api/v1/openapi.json" }).pipe(Layer.provide(ApiHandlers))

/**
 * The middleware around every request, exported for apps that serve our groups themselves.
 * Per-client limits count by the client behind the trusted proxies, not by the proxy. The log
 * line of each request, and its span when tracing is on, leave out the secrets its URL may
 * carry (RequestLog).
 */
export const serverMiddleware = (trustProxy: TrustedProxies) =>
<E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
) =>
  httpMetrics(
    requestLogger(redactRequestSpan(clientAddressMiddleware(trustProxy)(errorBodies(bodyLimit(apiDocsPolicy(app))))))
  )

/** Every route: the API, its Swagger page at /docs, the dashboard, /metrics and the public pages. */
const Routes = Layer.mergeAll(
  ApiLive,
  ApiDocsRoute,
  AdminRoutes,
  MetricsRoute,
  PublicRoutes.pipe(Layer.provide([PublicPages.layer, Subscriptions.layer])),
  // Statuspage's public API for every page (docs/statuspage-compatibility.md).
  StatuspageRoutes.pipe(Layer.provide(StatuspageResponses.layer))
)

/**
 * The routes served with the middleware, logging the address it listens on. The live event
 * streams end as it stops (LiveEvents.endOnShutdown, built after the server so that it is
 * finalized first): the server would otherwise wait for their connections, which never close
 * by themselves.
 */
export const HttpLive = LiveEvents.endOnShutdown.pipe(
  Layer.provideMerge(Layer.unwrap(
    Effect.map(
      AppConfig,
      (config) => HttpRouter.serve(Routes, { middleware: serverMiddleware(config.trustProxy), disableLogger: true })
    )
  )),
  Layer.provide(ApiServices)
)
