/**
 * What the local commands (`api-key`, `admin`) run on: the service's own auth services over the
 * configured database (DATABASE_URL, or the embedded one under DATA_DIR, which only one process
 * may open at a time: stop the service first). Nothing here talks to a running server.
 */
import { Effect, Layer, References } from "effect"

import { loggingLayer } from "../runtime/Telemetry.js"
import { Administrators } from "../services/auth/Administrators.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"

/** The local commands' logging: the database's start-up chatter stays out of their output; LOG_FORMAT as the service. */
export const LocalLogger = Layer.merge(Layer.succeed(References.MinimumLogLevel, "Warn"), loggingLayer)

export const LocalServices = Layer.unwrap(
  // Loaded on use: the database layer (with the embedded PGlite) is most of the CLI's start-up
  // time, which the commands against a running service do not need.
  Effect.promise(() => import("../persistence/Database.js")).pipe(
    Effect.map(({ Database }) => Layer.mergeAll(ApiKeys.layer, Administrators.layer).pipe(Layer.provide(Database)))
  )
).pipe(Layer.provideMerge(LocalLogger))
