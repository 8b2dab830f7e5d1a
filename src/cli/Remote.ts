/**
 * What every command against a running service shares: where it is (`--url`, STATUS_PAGE_URL),
 * the API key (`--api-key`, STATUS_PAGE_API_KEY, never printed), `--json`, the time-out and the
 * Idempotency-Key of its POST, and the typed client built from them.
 */
import { randomUUID } from "node:crypto"

import type { Redacted } from "effect"
import { Config, Console, Duration, Effect, Layer, Option, Schema } from "effect"
import { Flag } from "effect/cli"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientResponse } from "effect/http"

import type { StatusPageApiClient } from "../client/StatusPageClient.js"
import { makeStatusPageClient, withIdempotencyKey } from "../client/StatusPageClient.js"
import { isIdempotencyKey } from "../domain/IdempotencyKey.js"
import { isLoopbackHost } from "../domain/NetworkAddress.js"
import { refusedInput, UsageError } from "./CliFailure.js"

/**
 * A switch: off unless given (a boolean flag of effect/cli is required without a default), and
 * with no `--no-…` form, which effect/cli would otherwise add.
 */
export const flagSwitch = (name: string) => Flag.Boolean(name).pipe(Flag.withoutNegation, Flag.withDefault(false))

export const connection = {
  url: Flag.String("url").pipe(
    Flag.withFallbackConfig(Config.String("STATUS_PAGE_URL")),
    // Missing, it is reported by withClient, which can name the variable.
    Flag.optional,
    Flag.withDescription("The service's address, e.g. https://status.example.com (default: STATUS_PAGE_URL)")
  ),
  apiKey: Flag.Redacted("api-key").pipe(
    Flag.withFallbackConfig(Config.Redacted("STATUS_PAGE_API_KEY")),
    Flag.optional,
    Flag.withDescription(
      "An API key, svc_… (default: STATUS_PAGE_API_KEY; prefer the variable: arguments show in ps)"
    )
  ),
  insecure: flagSwitch("insecure").pipe(
    Flag.withDescription("Send the API key over plain http:// to a host other than this machine's loopback")
  ),
  json: flagSwitch("json").pipe(
    Flag.withDescription("Print the API's answer as JSON on stdout instead of lines for people")
  ),
  timeout: Flag.Int("timeout").pipe(
    Flag.withFallbackConfig(Config.Int("STATUS_PAGE_TIMEOUT")),
    Flag.withDefault(30),
    Flag.withDescription("Seconds to wait for each answer, and for the maintenance clock (default: 30)")
  ),
  idempotencyKey: Flag.String("idempotency-key").pipe(
    Flag.optional,
    Flag.withDescription(
      "Sent as Idempotency-Key on the command's POST: running the command again with the same key within 24 hours " +
        "answers the first answer without doing the work twice (default: a new key each run)"
    )
  )
}

export interface Connection {
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly insecure: boolean
  readonly json: boolean
  readonly timeout: number
  /** None: a new key for this run. */
  readonly idempotencyKey?: Option.Option<string> | undefined
}

/** Statuses whose answer has no body (the Response constructor refuses one). */
const nullBodyStatuses = new Set([101, 204, 205, 304])

/**
 * Fetch with a time-out per request, so a pipeline never hangs on a silent server. It covers
 * the whole answer: the body is read into memory within it (answers of the API are small), so
 * a server that sends its headers and then stalls does not hang the command either. The
 * time-out is a transport failure, like a refused connection: the service did not answer.
 */
const httpClient = (timeout: Duration.Duration) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      HttpClient.HttpClient,
      HttpClient.transform((response, request) =>
        Effect.timeoutOrElse(
          Effect.flatMap(response, (answer) =>
            Effect.map(answer.arrayBuffer, (body) =>
              HttpClientResponse.fromWeb(
                request,
                new Response(nullBodyStatuses.has(answer.status) ? null : body, {
                  status: answer.status,
                  headers: answer.headers
                })
              ))),
          {
            duration: timeout,
            orElse: () =>
              Effect.fail(
                new HttpClientError.HttpClientError({
                  reason: new HttpClientError.TransportError({
                    request,
                    description: `no answer within ${Duration.format(timeout)}`
                  })
                })
              )
          }
        )
      )
    )
  ).pipe(Layer.provide(FetchHttpClient.layer))

/** Runs `use` with the typed client of the service `connection` names. */
export const withClient = <A, E>(
  connection: Connection,
  use: (client: StatusPageApiClient) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    if (Option.isNone(connection.url)) {
      return yield* new UsageError({ message: "Set STATUS_PAGE_URL (or pass --url) to the service's address" })
    }
    if (connection.timeout <= 0) {
      return yield* new UsageError({ message: "--timeout must be a positive number of seconds" })
    }
    // Before any request, so before any DNS lookup: over http:// the key would cross the network
    // in clear. An address that does not parse is left to the client to report.
    const url = URL.canParse(connection.url.value) ? new URL(connection.url.value) : undefined
    if (url?.protocol === "http:" && !isLoopbackHost(url.hostname) && !connection.insecure) {
      return yield* new UsageError({
        message:
          `Refusing to send the API key over plain http:// to ${url.host}: use https://, or pass --insecure to send it anyway`
      })
    }
    const key = Option.getOrElse(connection.idempotencyKey ?? Option.none(), () => randomUUID())
    if (!isIdempotencyKey(key)) {
      return yield* new UsageError({ message: "--idempotency-key must be 1 to 255 printable ASCII characters" })
    }
    const client = yield* makeStatusPageClient({
      baseUrl: connection.url.value,
      apiKey: Option.getOrUndefined(connection.apiKey)
    })
    // One key per run: each command sends at most one POST, which any retry of it repeats.
    return yield* use(client).pipe(withIdempotencyKey(key))
  }).pipe(Effect.provide(httpClient(Duration.seconds(connection.timeout))))

/** `value` without the fields (of its plain objects, nested ones included) that are `undefined`. */
const leaveOutUndefined = (value: unknown): unknown =>
  value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
    ? Object.fromEntries(
      Object.entries(value).filter(([, field]) => field !== undefined).map(([key, field]) => [
        key,
        leaveOutUndefined(field)
      ])
    )
    : value

/**
 * Decodes a request body from the command line with the API's own schema: bad input is a usage error.
 * An option left out is given as `undefined`: its field is left out (the optional fields take no `undefined`).
 */
export const body = <A, I>(schema: Schema.Codec<A, I>, input: unknown) =>
  Schema.decodeUnknownEffect(schema, { errors: "all" })(leaveOutUndefined(input)).pipe(
    Effect.mapError(refusedInput)
  )

/** With `--json`, the answer as the API sent it (encoded by its schema); else the line for people. */
export const print = <A, I>(
  connection: Connection,
  schema: Schema.Codec<A, I>,
  value: A,
  human: (value: A) => string
) =>
  connection.json
    ? Effect.flatMap(Schema.encodeEffect(schema)(value), (encoded) => Console.log(JSON.stringify(encoded, null, 2)))
    : Console.log(human(value))

/** Columns padded to their widest cell, the last one left ragged. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const all = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0)))
  return all
    .map((row) => row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]!)).join("  "))
    .join("\n")
}

/** The values of a literal schema, as the choices of an argument. */
export const choices = <A extends string>(values: ReadonlyArray<A>) =>
  values.map((value): [string, A] => [value, value])

/** A title or name in a line for people. */
export const quoted = (text: string) => JSON.stringify(text)
