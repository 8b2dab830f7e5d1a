/**
 * The real HTTP stack on a random loopback port, over a fresh database. Tests talk to it
 * with the typed client derived from the API (`ApiClient`) or, for bad input, raw requests
 * (`sendJson`). Both carry an API key created for the suite; `Anonymous` is the same client
 * without credentials. The server's Clock is the suite's TestClock, set to the real time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { ConfigProvider, Context, Effect, Layer, type LogLevel, Option, Stream } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse, HttpServer } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { TestClock } from "effect/testing"

import { Api } from "../../src/api/Api.js"
import { CreateApiKey } from "../../src/domain/Auth.js"
import { PublicHttpServer } from "../../src/http/PublicHttpServer.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { ApiKeys } from "../../src/services/auth/ApiKeys.js"
import { MaintenanceClock } from "../../src/workers/MaintenanceClock.js"
import { RecordingTestClock } from "./Eventually.js"
import { minimumLogLevel } from "./Logs.js"
import { tcpProxy } from "./TcpProxy.js"
import { freshDatabaseUrl, testConfig } from "./TestDatabase.js"

export class Anonymous extends Context.Service<Anonymous, HttpClient.HttpClient>()("test/Anonymous") {}
export class SuiteApiKey extends Context.Service<SuiteApiKey, string>()("test/SuiteApiKey") {}

/** The production server (with its public fast path) on a loopback port, and a client pointed at it. */
export const TestHttpServer = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerNodeHttpNoAgent),
  Layer.provide(NodeHttpClient.layerAgentOptions({ keepAlive: false })),
  Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" }))
)

const Authenticated = Layer.effectContext(
  Effect.gen(function*() {
    const anonymous = yield* HttpClient.HttpClient
    const apiKeys = yield* ApiKeys
    const { key } = yield* apiKeys.create(new CreateApiKey({ name: "test suite" }), { userId: null, role: "owner" })
    return Context.make(
      HttpClient.HttpClient,
      anonymous.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key)))
    ).pipe(
      Context.add(Anonymous, anonymous),
      Context.add(SuiteApiKey, key)
    )
  })
).pipe(Layer.provide(ApiKeys.layer))

/**
 * The API, authenticated, over the configuration `config` provides (DATABASE_URL at least); the
 * database is exposed so tests can read the outbox. Background clocks are left out: a suite that
 * needs one adds it (`withMaintenanceClock`), since a fiber waking every few seconds turns every
 * long TestClock.adjust into thousands of rounds of queries. Logs below `logLevel` are dropped (a
 * suite that reads the request log, at Info, asks for it and provides its own Logger).
 */
export const TestStack = <A, E>(config: Layer.Layer<A, E>, logLevel: LogLevel.LogLevel = "Warn") =>
  Authenticated.pipe(
    Layer.provideMerge(HttpLive),
    Layer.provideMerge(TestHttpServer),
    Layer.provideMerge(Database),
    Layer.provideMerge(config),
    // Merged, not only provided: the suite's tests log at the stack's level too.
    Layer.provideMerge(minimumLogLevel(logLevel))
  )

/** Cuts and restores the connection between the app of `TestStackBehindProxy` and PostgreSQL. */
export class DatabaseProxy extends Context.Service<
  DatabaseProxy,
  { readonly cut: () => Promise<void>; readonly restore: () => Promise<void> }
>()("test/DatabaseProxy") {}

/** A test stack on a fresh database that it reaches through a proxy the test can cut; logs dropped. */
export const TestStackBehindProxy = Layer.unwrap(
  Effect.gen(function*() {
    const database = yield* freshDatabaseUrl
    const url = new URL(database.url)
    const proxy = yield* tcpProxy(Number(url.port || 5432), url.hostname)
    url.port = String(proxy.port)
    const app = TestStack(
      ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url.toString() })),
      "None"
    )
    return Layer.merge(app, Layer.succeed(DatabaseProxy, proxy))
  })
)

/** For suites on real time (`excludeTestServices`): a fresh database plus `variables`. */
export const LiveTestServer = (variables: Record<string, string> = {}) => TestStack(testConfig(variables))

/**
 * For `it.layer`: a fresh database plus `variables`, and the TestClock set to now. The clock is
 * the suite's TestClock seen through `RecordingTestClock`, for the stack and the tests alike, so
 * that `asleepUntil` sees the sleeps pending on it.
 */
export const TestServer = (variables: Record<string, string> = {}, logLevel?: LogLevel.LogLevel) =>
  TestStack(testConfig(variables), logLevel).pipe(
    Layer.provide(Layer.effectDiscard(TestClock.setTime(Date.now()))),
    Layer.provideMerge(RecordingTestClock)
  )

/** A test stack that also runs the maintenance clock. */
export const withMaintenanceClock = <A, E, R>(stack: Layer.Layer<A, E, R>) =>
  MaintenanceClock.pipe(Layer.provideMerge(stack))

export const ApiClient = HttpApiClient.make(Api)

/** The typed client without credentials. */
export const AnonymousApiClient = Effect.flatMap(
  Anonymous,
  (client) => HttpApiClient.make(Api).pipe(Effect.provideService(HttpClient.HttpClient, client))
)

/**
 * An event stream's text up to the end of its first event (a blank line); reading stops there and
 * the connection is closed, since the stream never ends by itself (the admin API's live events).
 */
const firstEvent = (response: HttpClientResponse.HttpClientResponse) =>
  response.stream.pipe(
    Stream.decodeText,
    Stream.scan(() => "", (text, chunk: string) => text + chunk),
    Stream.takeUntil((text) => /\r?\n\r?\n/.test(text)),
    Stream.runLast,
    Effect.map((text) => {
      const read = Option.getOrElse(text, () => "")
      const end = /\r?\n\r?\n/.exec(read)
      return end === null ? read : read.slice(0, end.index + end[0].length)
    })
  )

const isEventStream = (response: HttpClientResponse.HttpClientResponse) =>
  (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() === "text/event-stream"

/**
 * Sends a raw request with a JSON body (any value, even an invalid one) and returns status and
 * parsed body; of an event stream, the text of its first event.
 */
export const sendJson = (
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  body?: unknown,
  headers: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(url).pipe(HttpClientRequest.setHeaders(headers))
    if (body !== undefined) {
      request = HttpClientRequest.bodyText(
        request,
        typeof body === "string" ? body : JSON.stringify(body),
        "application/json"
      )
    }
    const response = yield* client.execute(request)
    const text = isEventStream(response) ? yield* firstEvent(response) : yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      body: text.length > 0 && response.headers["content-type"]?.includes("json") ? JSON.parse(text) : text
    }
  })

/** `sendJson` without credentials. */
export const sendAnonymous = (...args: Parameters<typeof sendJson>) =>
  Effect.flatMap(Anonymous, (client) => sendJson(...args).pipe(Effect.provideService(HttpClient.HttpClient, client)))
