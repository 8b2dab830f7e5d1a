/**
 * The typed client of the HTTP API, for other programs (the CLI, platform teams' apps, tests):
 * derived from the API declaration (`src/api/Api.ts`), so it cannot drift from the server.
 * `baseUrl` is the service's address (`https://status.example.com`); `apiKey`, when given, is
 * sent as `Authorization: Bearer svc_…` on every request, which the admin endpoints need. A call
 * run under `withIdempotencyKey(key)` sends `Idempotency-Key: key` on its admin POSTs, so that
 * retrying it is safe (./IdempotencyKey.ts); one run under `withIfMatch(etag)` sends `If-Match` on
 * its writes (./IfMatch.ts).
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

import { Api } from "../api/Api.js"
import { IdempotencyClient } from "./IdempotencyKey.js"
import { PreconditionsClient } from "./IfMatch.js"

export { IdempotencyKey, withIdempotencyKey } from "./IdempotencyKey.js"
export { IfMatch, withIfMatch } from "./IfMatch.js"
export { allPages, everyItem, nextCursor } from "./Pages.js"

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
  }).pipe(Effect.provide([IdempotencyClient, PreconditionsClient]))
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
