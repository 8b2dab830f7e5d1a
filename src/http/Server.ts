/**
 * The HTTP side: the HttpApi handlers, OpenAPI document at /api/v1/openapi.json, its
 * Swagger page at /docs, the admin dashboard at /admin and the public status page at /. Needs an HttpServer and a migrated database.
 */
import { HttpApiBuilder, HttpApiSwagger, type HttpApp, HttpServer } from "@effect/platform"
import { Effect, Layer } from "effect"

import { Api } from "../api/Api.js"
import { AppConfig } from "../Config.js"
import { redactRequestSpan } from "../observability/RequestSpan.js"
import { Administrators } from "../services/auth/Administrators.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { Sessions } from "../services/auth/Sessions.js"
import { ComponentGroups } from "../services/catalog/ComponentGroups.js"
import { Components } from "../services/catalog/Components.js"
import { Incidents } from "../services/catalog/Incidents.js"
import { IncidentTemplates } from "../services/catalog/IncidentTemplates.js"
import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"
import { OrganizationProfile } from "../services/catalog/OrganizationProfile.js"
import { Monitors } from "../services/monitoring/Monitors.js"
import { ProbeRegistry } from "../services/monitoring/ProbeRegistry.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"
import { Subscriptions } from "../services/notifications/Subscriptions.js"
import { Webhooks } from "../services/notifications/webhooks/Webhooks.js"
import { Overview } from "../services/operations/Overview.js"
import { PublicResponseTimes } from "../services/public/PublicResponseTimes.js"
import { PublicSnapshot } from "../services/public/PublicSnapshot.js"
import { PublicUptime } from "../services/public/PublicUptime.js"
import { AdminRoutes } from "../web/admin/AdminRoutes.js"
import { PublicPages } from "../web/public/PublicPages.js"
import { PublicRoutes } from "../web/public/PublicRoutes.js"
import { apiDocsPolicy } from "./ApiDocsPolicy.js"
import { ApiKeysHttp } from "./ApiKeysHttp.js"
import { AuthenticationLive } from "./Authentication.js"
import { AuthHttp } from "./AuthHttp.js"
import { bodyLimit } from "./BodyLimit.js"
import { clientAddressMiddleware, type TrustedProxies } from "./ClientAddress.js"
import { ComponentGroupsHttp } from "./ComponentGroupsHttp.js"
import { ComponentsHttp } from "./ComponentsHttp.js"
import { errorBodies } from "./ErrorBodies.js"
import { HealthHttp } from "./HealthHttp.js"
import { IncidentsHttp } from "./IncidentsHttp.js"
import { IncidentTemplatesHttp } from "./IncidentTemplatesHttp.js"
import { JsonBodiesLive } from "./JsonBodies.js"
import { MaintenanceHttp } from "./MaintenanceHttp.js"
import { httpMetrics, MetricsRoute } from "./MetricsHttp.js"
import { MonitorsHttp } from "./MonitorsHttp.js"
import { OrganizationHttp } from "./OrganizationHttp.js"
import { OverviewHttp } from "./OverviewHttp.js"
import { ProbesHttp } from "./ProbesHttp.js"
import { requestLogger } from "./RequestLog.js"
import { ResponseTimesHttp } from "./ResponseTimesHttp.js"
import { StatusHttp } from "./StatusHttp.js"
import { SubscribersHttp, SubscriptionsHttp } from "./SubscriptionsHttp.js"
import { WebhooksHttp } from "./WebhooksHttp.js"

const FirstAdministrator = Layer.effectDiscard(
  Effect.flatMap(Administrators, (admins) => admins.ensureFirstAdministrator())
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
  ComponentsHttp,
  ComponentGroupsHttp,
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
  ResponseTimesHttp
).pipe(
  Layer.provide([AuthenticationLive, JsonBodiesLive]),
  Layer.provide([
    Components.Default,
    ComponentGroups.Default,
    Monitors.Default,
    PublicSnapshot.Default,
    PublicUptime.Default,
    PublicResponseTimes.Default,
    ResponseTimes.Default,
    OrganizationProfile.Default,
    Incidents.Default,
    IncidentTemplates.Default,
    MaintenanceWindows.Default,
    Administrators.Default,
    ApiKeys.Default,
    Sessions.Default,
    Webhooks.Default,
    Subscriptions.Default,
    ProbeRegistry.Default,
    Overview.Default
  ])
)

const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(ApiHandlers))

/**
 * The middleware around every request, exported for apps that serve our groups themselves.
 * Per-client limits count by the client behind the trusted proxies, not by the proxy. The log
 * line of each request, and its span when tracing is on, leave out the secrets its URL may
 * carry (RequestLog).
 */
export const serverMiddleware = (trustProxy: TrustedProxies) => <E, R>(app: HttpApp.Default<E, R>) =>
  httpMetrics(
    requestLogger(redactRequestSpan(clientAddressMiddleware(trustProxy)(errorBodies(bodyLimit(apiDocsPolicy(app))))))
  )

const serve = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => HttpApiBuilder.serve(serverMiddleware(config.trustProxy)))
)

export const HttpLive = serve.pipe(
  Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
  Layer.provide(AdminRoutes),
  Layer.provide(MetricsRoute),
  Layer.provide(PublicRoutes.pipe(Layer.provide([PublicPages.Default, Subscriptions.Default]))),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })),
  Layer.provide(ApiLive),
  HttpServer.withLogAddress
)
