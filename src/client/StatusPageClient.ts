/**
 * The typed client of the HTTP API, for other programs (the CLI, platform teams' apps, tests):
 * derived from the API declaration (`src/api/Api.ts`), so it cannot drift from the server.
 * `baseUrl` is the service's address (`https://status.example.com`); `apiKey`, when given, is
 * sent as `Authorization: Bearer svc_…` on every request, which the admin endpoints need.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

import { Api } from "../api/Api.js"

export interface StatusPageClientOptions {
  readonly baseUrl: string
  readonly apiKey?: Redacted.Redacted<string> | string | undefined
}

/** Builds the client over whatever HttpClient the context provides (Node's fetch, a test's, a browser's). */
export const makeStatusPageClient = (options: StatusPageClientOptions) => {
  const apiKey = Option.fromNullishOr(options.apiKey).pipe(
    Option.map((key) => (Redacted.isRedacted(key) ? Redacted.value(key) : key))
  )
  return HttpApiClient.make(Api, {
    baseUrl: options.baseUrl.replace(/\/$/, ""),
    transformClient: Option.match(apiKey, {
      onNone: () => (client: HttpClient.HttpClient) => client,
      onSome: (key) => HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
    })
  })
}

export type StatusPageApiClient = Effect.Success<ReturnType<typeof makeStatusPageClient>>

/** The client as a service, for programs that wire it once and use it everywhere. */
export class StatusPageClient extends Context.Service<StatusPageClient, StatusPageApiClient>()(
  "status-page/StatusPageClient"
) {
  /** Over the given HttpClient layer (e.g. `NodeHttpClient.layerUndici`); defaults to fetch. */
  static readonly layer = (
    options: StatusPageClientOptions,
    httpClient: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
  ): Layer.Layer<StatusPageClient> =>
    Layer.effect(StatusPageClient, makeStatusPageClient(options)).pipe(Layer.provide(httpClient))
}
