/**
 * The real HTTP stack on a random loopback port, over a fresh database. Tests talk to it
 * with the typed client derived from the API (`ApiClient`) or, for bad input, raw requests.
 */
import { HttpApiClient, HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Api } from "../../src/api/Api.js"
import { PublicHttpServer } from "../../src/http/PublicFastPath.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { MaintenanceClock } from "../../src/services/MaintenanceClock.js"
import { testConfig } from "./TestDatabase.js"

/** The production server (with its public fast path) on a loopback port, and a client pointed at it. */
export const TestHttpServer = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" }))
)

/** The API, the maintenance clock, and the database (tests read the outbox through SqlClient). */
export const TestServer = (variables: Record<string, string> = {}) =>
  Layer.merge(HttpLive, MaintenanceClock).pipe(
    Layer.provideMerge(TestHttpServer),
    Layer.provideMerge(Database),
    Layer.provide(testConfig(variables)),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

export const ApiClient = HttpApiClient.make(Api)

/** Sends a raw request with a JSON body (any value, even an invalid one) and returns status and parsed body. */
export const sendJson = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, body?: unknown) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(url)
    if (body !== undefined) {
      request = HttpClientRequest.bodyText(request, typeof body === "string" ? body : JSON.stringify(body), "application/json")
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : undefined }
  }).pipe(Effect.scoped)
