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

import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Schema, String } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { apiGroupsFor, AppConfig, DispatcherRole, Migrations, serverMiddleware } from "../../src/index.js"
import { AcmeApi, Greeting } from "./AcmeApi.js"

const validPort = Schema.isBetween(
  { minimum: 0, maximum: 65535 },
  { message: "ACME_PORT must be from 0 to 65535 (0: any free port)" }
)

const AcmeConfig = Config.all({
  databaseUrl: Config.Redacted("ACME_DATABASE_URL"),
  // 0: any free port; the server logs the one it got (`Listening on http://...`).
  port: Config.schema(Schema.Int.check(validPort), "ACME_PORT").pipe(Config.withDefault(8080)),
  host: Config.String("ACME_HOST").pipe(Config.withDefault("127.0.0.1"))
})

// The status page's repositories use camelCase names in TypeScript and snake_case in SQL.
const DatabaseLive = Layer.unwrap(
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

const ApiLive = HttpApiBuilder.layer(AcmeApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide(AcmeLive),
  Layer.provide(apiGroupsFor(AcmeApi))
)

const ServerLive = Layer.unwrap(
  Effect.gen(function*() {
    const { host, port } = yield* AcmeConfig
    const { trustProxy } = yield* AppConfig
    // serverMiddleware logs each request itself; the server logs the address it listens on.
    return HttpRouter.serve(ApiLive, { middleware: serverMiddleware(trustProxy), disableLogger: true }).pipe(
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
