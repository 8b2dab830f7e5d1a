/**
 * Composition root: reads the configuration, opens the database (running migrations) and
 * runs the roles named in ROLES. SIGTERM/SIGINT interrupt the layers, which close cleanly.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { Database } from "./persistence/Database.js"
import { Roles } from "./roles.js"

Layer.launch(Roles.pipe(Layer.provide(Database))).pipe(NodeRuntime.runMain)
