/**
 * The HTTP side: the HttpApi handlers, OpenAPI document at /api/v1/openapi.json and its
 * Swagger page at /docs. Needs an HttpServer and a migrated database.
 */
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "../api/Api.js"
import { Components } from "../services/Components.js"
import { Incidents } from "../services/Incidents.js"
import { MaintenanceWindows } from "../services/Maintenance.js"
import { OrganizationProfile } from "../services/Organization.js"
import { PublicSnapshot } from "../services/PublicSnapshot.js"
import { errorBodies } from "./ErrorBodies.js"
import { ComponentsHttp } from "./ComponentsHttp.js"
import { HealthHttp } from "./HealthHttp.js"
import { IncidentsHttp } from "./IncidentsHttp.js"
import { MaintenanceHttp } from "./MaintenanceHttp.js"
import { OrganizationHttp } from "./OrganizationHttp.js"
import { StatusHttp } from "./StatusHttp.js"

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([HealthHttp, StatusHttp, ComponentsHttp, OrganizationHttp, IncidentsHttp, MaintenanceHttp]),
  Layer.provide([
    Components.Default,
    PublicSnapshot.Default,
    OrganizationProfile.Default,
    Incidents.Default,
    MaintenanceWindows.Default
  ])
)

export const HttpLive = HttpApiBuilder.serve((app) => HttpMiddleware.logger(errorBodies(app))).pipe(
  Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })),
  Layer.provide(ApiLive),
  HttpServer.withLogAddress
)
