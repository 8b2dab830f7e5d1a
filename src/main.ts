/**
 * Composition root: reads the configuration, opens the database (running migrations) and
 * runs the roles named in ROLES. SIGTERM/SIGINT interrupt the layers, which close cleanly.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"

import { environment } from "./Config.js"
import { Database } from "./persistence/Database.js"
import { Roles } from "./Roles.js"

Layer.launch(Roles.pipe(Layer.provide(Database))).pipe(Effect.withConfigProvider(environment()), NodeRuntime.runMain)
