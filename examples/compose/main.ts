/**
 * An app that composes the status page into its own (`tsx examples/compose/main.ts`): its own
 * configuration (ACME_DATABASE_URL, ACME_PORT, ACME_HOST) and PgClient, our migrations, our API
 * groups beside its own endpoint under one HttpApi, served with our request middleware and the
 * OpenAPI document of the whole at /openapi.json. The status page's own settings (ADMIN_EMAIL,
 * TRUST_PROXY, ...) are read from the environment as usual; none is required.
 *
 * An installed app imports the same names from "status-page-service" and
 * "status-page-service/api"; this example imports the sources so it runs without a build.
 */
import { createServer } from "node:http"

import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, String } from "effect"

import { apiGroupsFor, AppConfig, DispatcherRole, Migrations, serverMiddleware } from "../../src/index.js"
import { AcmeApi, Greeting } from "./AcmeApi.js"

const validPort = (port: number) => port >= 0 && port <= 65535

const AcmeConfig = Config.all({
  databaseUrl: Config.redacted("ACME_DATABASE_URL"),
  // 0: any free port; the server logs the one it got (`Listening on http://...`).
  port: Config.integer("ACME_PORT").pipe(
    Config.withDefault(8080),
    Config.validate({ message: "ACME_PORT must be from 0 to 65535 (0: any free port)", validation: validPort })
  ),
  host: Config.string("ACME_HOST").pipe(Config.withDefault("127.0.0.1"))
})

// The status page's repositories use camelCase names in TypeScript and snake_case in SQL.
const DatabaseLive = Layer.unwrapEffect(
  Effect.map(AcmeConfig, ({ databaseUrl }) =>
    PgClient.layer({
      url: databaseUrl,
      transformQueryNames: String.camelToSnake,
      transformResultNames: String.snakeToCamel
    }))
)

const AcmeLive = HttpApiBuilder.group(
  AcmeApi,
  "acme",
  (handlers) => handlers.handle("hello", () => Effect.succeed(new Greeting({ greeting: "hello from acme" })))
)

const ApiLive = HttpApiBuilder.api(AcmeApi).pipe(
  Layer.provide(AcmeLive),
  Layer.provide(apiGroupsFor(AcmeApi))
)

const ServerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { host, port } = yield* AcmeConfig
    const { trustProxy } = yield* AppConfig
    return HttpApiBuilder.serve(serverMiddleware(trustProxy)).pipe(
      Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
      Layer.provide(ApiLive),
      HttpServer.withLogAddress,
      Layer.provide(NodeHttpServer.layer(createServer, { port, host }))
    )
  })
)

// Migrations run first: the server and the dispatcher start on a migrated database.
const AcmeAppLive = Layer.mergeAll(ServerLive, DispatcherRole).pipe(
  Layer.provide(Migrations),
  Layer.provide(DatabaseLive)
)

Layer.launch(AcmeAppLive).pipe(NodeRuntime.runMain)
