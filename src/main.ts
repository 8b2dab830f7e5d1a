/**
 * Composition root: reads the configuration, opens the database (running migrations) and
 * runs the roles named in ROLES. SIGTERM/SIGINT interrupt the layers, which close cleanly.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "./Config.js"
import { PublicHttpServer } from "./http/PublicFastPath.js"
import { HttpLive } from "./http/Server.js"
import { Database } from "./persistence/Database.js"
import { UptimeAggregator } from "./services/UptimeAggregator.js"
import { MaintenanceClock } from "./services/MaintenanceClock.js"
import { Dispatcher } from "./services/dispatcher/Dispatcher.js"

const ApiRole = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => HttpLive.pipe(Layer.provide(PublicHttpServer({ port: config.port, host: config.host }))))
)

/**
 * The scheduler role: the uptime aggregation fiber and the maintenance clock (the check
 * scheduler joins them with the fleet). Safe in several instances: each maintenance window
 * transition is claimed with SKIP LOCKED, and rollups are idempotent upserts.
 */
const SchedulerRole = Layer.mergeAll(UptimeAggregator, MaintenanceClock)

const Roles = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.mergeAll(
      config.roles.includes("api") ? ApiRole : Layer.empty,
      config.roles.includes("scheduler") ? SchedulerRole : Layer.empty,
      config.roles.includes("dispatcher") ? Dispatcher : Layer.empty
    ))
)

Layer.launch(Roles.pipe(Layer.provide(Database))).pipe(NodeRuntime.runMain)
