/**
 * Composition root: reads the configuration, opens the database (running migrations) and
 * runs the roles named in ROLES. SIGTERM/SIGINT interrupt the layers, which close cleanly (exit 0).
 */
// First: keeps nextTick's record shape before any garbage collection can drop it (runtime/TickShape.ts).
import "./runtime/TickShape.js"

import { NodeRuntime } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer } from "effect"

import { Database } from "./persistence/Database.js"
import { Roles } from "./Roles.js"
import { environment } from "./runtime/Config.js"
import { teardown } from "./runtime/Teardown.js"
import * as Telemetry from "./runtime/Telemetry.js"

// Telemetry first: the database and the roles are built with its tracer and logger (LOG_FORMAT).
Layer.launch(Roles.pipe(Layer.provide(Database), Layer.provide(Telemetry.layer({ serviceName: "status-page" })))).pipe(
  Effect.provideService(ConfigProvider.ConfigProvider, environment()),
  NodeRuntime.runMain({ teardown })
)
