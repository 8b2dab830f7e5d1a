/**
 * examples/compose: an app of its own that mounts our API groups beside its own endpoint, on its
 * own PgClient and a fresh database, started as its own process on a loopback port (any free
 * one, read from its log) and called through its typed client (HttpApiClient.make(AcmeApi)).
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema, String } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

import { AcmeApi } from "../../examples/compose/AcmeApi.js"
import { CreateApiKey } from "../../src/api/index.js"
import { ApiKeys } from "../../src/index.js"
import { listeningUrl, startService, waitFor200 } from "../support/ChildProcess.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

/** The example running on a fresh database until the scope closes. */
const acmeApp = Effect.gen(function*() {
  const { url } = yield* freshDatabaseUrl
  // Any free port; the app logs the one it got.
  const app = yield* Effect.acquireRelease(
    Effect.sync(() => startService("examples/compose/main.ts", { ACME_DATABASE_URL: url, ACME_PORT: "0" })),
    (app) =>
      Effect.promise(async () => {
        app.child.kill("SIGTERM")
        await app.exited
      })
  )
  const baseUrl = yield* Effect.promise(() => listeningUrl(app, 30_000))
  yield* Effect.promise(() => waitFor200(`${baseUrl}/acme/hello`, 30_000, app))
  return { app, baseUrl, databaseUrl: url }
})

/** An API key made through our ApiKeys service, on the app's database. */
const createApiKey = (databaseUrl: string) =>
  Effect.gen(function*() {
    const input = yield* Schema.decodeUnknownEffect(CreateApiKey)({ name: "compose test" })
    return (yield* Effect.flatMap(ApiKeys, (keys) => keys.create(input, { userId: null, role: "owner" }))).key
  }).pipe(
    Effect.provide(ApiKeys.layer.pipe(Layer.provide(PgClient.layer({
      url: Redacted.make(databaseUrl),
      transformQueryNames: String.camelToSnake,
      transformResultNames: String.snakeToCamel
    })))),
    Effect.scoped
  )

describe("examples/compose", () => {
  it.live("serves its own endpoint and our API under one HttpApi, with our migrations and API keys", () =>
    Effect.gen(function*() {
      const { baseUrl, databaseUrl } = yield* acmeApp
      const anonymous = yield* HttpApiClient.make(AcmeApi, { baseUrl })
      const key = yield* createApiKey(databaseUrl)
      const admin = yield* HttpApiClient.make(AcmeApi, {
        baseUrl,
        transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
      })

      expect(yield* anonymous.acme.hello()).toMatchObject({ greeting: "hello from acme" })
      expect(yield* anonymous.health.live()).toMatchObject({ status: "ok" })

      // Our security middleware guards our admin endpoints under the app's API too.
      const refused = yield* Effect.flip(anonymous.components.list({ query: {} }))
      expect(refused).toMatchObject({ _tag: "Unauthorized" })

      const created = yield* admin.components.create({ payload: { name: "Acme API", status: "degraded" } })
      expect(created).toMatchObject({ name: "Acme API", status: "degraded", isPublic: true })
      expect((yield* admin.components.list({ query: {} })).map((c) => c.id)).toEqual([created.id])
      // The public side reads the snapshot, which includes an admin write once it has answered.
      const summary = yield* anonymous.status.summary()
      expect(summary.status).toBe("degraded")
      expect(summary.components.map((c) => c.name)).toEqual(["Acme API"])

      // One OpenAPI document for the whole app: its endpoint and ours.
      const document = yield* Effect.promise(() => fetch(`${baseUrl}/openapi.json`).then((r) => r.json()))
      expect(Object.keys((document as { paths: object }).paths)).toEqual(
        expect.arrayContaining(["/acme/hello", "/api/v1/status", "/api/v1/admin/components"])
      )
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
