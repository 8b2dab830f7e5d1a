/**
 * The `status-page-service` entry: the service as layers, for apps that compose it into their
 * own. Every layer here runs over a `PgClient` (and its `SqlClient`) that the app provides and
 * reads its settings through Effect's `Config` (src/Config.ts), so the app's ConfigProvider
 * supplies them; none needs DATABASE_URL. docs/library.md shows a composition.
 */
export { CurrentAuditScope, systemScope } from "./domain/Audit.js"
export { type ApiGroupName, apiGroupsFor } from "./http/apiGroupsFor.js"
export { PublicHttpServer } from "./http/PublicHttpServer.js"
export { ApiHandlers, HttpLive, serverMiddleware } from "./http/Server.js"
export { Database, DatabaseClient } from "./persistence/Database.js"
export { Migrations, migrationsDirectory, runMigrations } from "./persistence/Migrations.js"
export * as InProcessJobTransport from "./queue/InProcessJobTransport.js"
export { JobTransport, QueueError } from "./queue/JobTransport.js"
export * as RedisJobTransport from "./queue/redis/RedisJobTransport.js"
export { ApiRole, DispatcherRole, IngestRole, JobTransportLive, Roles, SchedulerRole } from "./Roles.js"
export { AppConfig, environment, MirrorConfig, QueueConfig, Role } from "./runtime/Config.js"
export { AuditTrail } from "./services/audit/AuditTrail.js"
export { Administrators } from "./services/auth/Administrators.js"
export { ApiKeys } from "./services/auth/ApiKeys.js"
export { Components } from "./services/catalog/Components.js"
export { Incidents } from "./services/catalog/Incidents.js"
export { MaintenanceWindows } from "./services/catalog/MaintenanceWindows.js"
export { OrganizationProfile } from "./services/catalog/OrganizationProfile.js"
export { Monitors } from "./services/monitoring/Monitors.js"
export { Subscriptions } from "./services/notifications/Subscriptions.js"
export { Webhooks } from "./services/notifications/webhooks/Webhooks.js"
export { MirrorPublisher } from "./workers/MirrorPublisher.js"
