/**
 * The `Idempotency` middleware (src/api/Idempotency.ts) around the handler of each admin POST,
 * inside `Authentication`. A request without `Idempotency-Key` passes straight through. With one,
 * the key is claimed before the handler runs (services/IdempotencyKeys), and the handler's answer
 * is stored, or replayed with `Idempotent-Replayed: true`.
 *
 * Which answers are stored: the final answer of a handler that ran, 2xx and 4xx alike (an
 * unknown component is 400 again on the retry, without running again). Not stored, so that a
 * retry runs again: 5xx (a database away or busy), request decoding failures (the handler did
 * not run) and answers given before this middleware (401, 403, 415, 429). A typed error of the
 * handler is encoded here, as the platform would, so the first answer and its replays are the
 * same bytes.
 */
import { Cause, Effect, Exit, Fiber, Layer, Option, Schema, SchemaAST } from "effect"
import { Cookies, HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiMiddleware } from "effect/http-api"

import { Idempotency, idempotencyKeyHeader, idempotentReplayedHeader } from "../api/Idempotency.js"
import { CurrentPrincipal, type Principal } from "../domain/Auth.js"
import { BadRequest } from "../domain/Errors.js"
import { isIdempotencyKey, type StoredAnswer } from "../domain/IdempotencyKey.js"
import { IdempotencyKeys, type IdempotencyTicket } from "../services/IdempotencyKeys.js"

const malformedKey = BadRequest.fromIssues([{
  path: ["Idempotency-Key"],
  message: "An Idempotency-Key is 1 to 255 printable ASCII characters"
}])

/** Keys never meet across principals: an API key's are its own, a user's are theirs in every session. */
const principalOf = (principal: Principal) =>
  principal.method === "apiKey" ? `api-key:${principal.apiKeyId}` : `user:${principal.userId}`

/** The errors the endpoint declares, its middleware's included, as the platform encodes them. */
const declaredErrors = (endpoint: HttpApiEndpoint.Top): Array<Schema.Top> => [
  ...endpoint.error,
  ...Array.from(endpoint.middlewares, (key) => Array.from((key as unknown as HttpApiMiddleware.AnyService).error))
    .flat()
]

const statusOf = SchemaAST.resolveAt<number>("httpApiStatus")

/** The answer a typed failure of the handler becomes (JSON with the error's status); none for anything else. */
const errorResponse = (
  endpoint: HttpApiEndpoint.Top,
  cause: Cause.Cause<unknown>
): Effect.Effect<Option.Option<HttpServerResponse.HttpServerResponse>> => {
  if (Cause.hasDies(cause) || Cause.hasInterrupts(cause)) return Effect.succeedNone
  const error = Cause.findErrorOption(cause)
  if (Option.isNone(error)) return Effect.succeedNone
  const schema = declaredErrors(endpoint).find((declared) => Schema.is(declared)(error.value))
  if (schema === undefined) return Effect.succeedNone
  // Our errors are schema classes that need no services to encode.
  const encode = Schema.encodeUnknownEffect(Schema.toCodecJson(schema) as unknown as Schema.Codec<unknown, unknown>)
  return encode(error.value).pipe(
    Effect.map((body) =>
      Option.some(
        HttpServerResponse.text(JSON.stringify(body), {
          status: statusOf(schema.ast) ?? 500,
          contentType: "application/json"
        })
      )
    ),
    Effect.orElseSucceed(() => Option.none())
  )
}

/** What is kept of an answer: its status, headers and body bytes; none for a 5xx, a cookie or a stream. */
const storable = (response: HttpServerResponse.HttpServerResponse): Option.Option<StoredAnswer> => {
  if (response.status >= 500 || !Cookies.isEmpty(response.cookies)) return Option.none()
  const headers = { ...response.headers }
  switch (response.body._tag) {
    case "Empty":
      return Option.some({ status: response.status, headers, contentType: undefined, body: new Uint8Array() })
    case "Uint8Array":
      return Option.some({
        status: response.status,
        headers,
        contentType: response.body.contentType,
        body: response.body.body
      })
    default:
      return Option.none()
  }
}

const replay = (answer: StoredAnswer) => {
  const headers = { ...answer.headers, [idempotentReplayedHeader]: "true" }
  return answer.contentType === undefined
    ? HttpServerResponse.empty({ status: answer.status, headers })
    : HttpServerResponse.uint8Array(answer.body, { status: answer.status, headers, contentType: answer.contentType })
}

/** 409 says when to come back, as 429 does. */
const retryShortly = HttpEffect.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", "1"))
)

export const IdempotencyLive = Layer.effect(
  Idempotency,
  Effect.gen(function*() {
    const keys = yield* IdempotencyKeys

    /** Runs the handler, then stores its answer or gives the key up; the answer either way. */
    const record = <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      endpoint: HttpApiEndpoint.Top,
      ticket: IdempotencyTicket
    ) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(httpEffect)
        const answer = Exit.isSuccess(exit) ? Option.some(exit.value) : yield* errorResponse(endpoint, exit.cause)
        const stored = Option.flatMap(answer, storable)
        // The work is done: a failure to record it (database away) leaves the claim to its lease
        // and the answer still goes out.
        yield* (Option.isSome(stored) ? keys.complete(ticket, stored.value) : keys.release(ticket)).pipe(
          Effect.catchCause((cause) => Effect.logWarning("Idempotency-Key: the answer could not be recorded", cause))
        )
        return Option.isSome(stored) && Option.isSome(answer) ? answer.value : yield* exit
      })

    return Idempotency.of((httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers[idempotencyKeyHeader]
        if (key === undefined || endpoint.method !== "POST") return yield* httpEffect
        if (!isIdempotencyKey(key)) return yield* malformedKey
        const principal = yield* Effect.serviceOption(CurrentPrincipal)
        // Read once here, and again from the request's cache by the handler; a body that cannot
        // be read fails the handler the same way.
        const body = yield* Effect.option(request.text)
        if (Option.isNone(principal) || Option.isNone(body)) return yield* httpEffect
        const start = yield* keys.begin({
          principal: principalOf(principal.value),
          key,
          method: request.method,
          url: request.url,
          body: body.value
        }).pipe(Effect.tapErrorTag("Conflict", () => retryShortly))
        if (start._tag === "Replay") return replay(start.answer)
        // Detached: a client that hangs up (which interrupts its request) leaves the handler to
        // finish and its answer stored for the retry, where interrupting it could leave work done
        // and the key given up. The handler stays interruptible inside, for its own time-outs.
        const run = yield* Effect.forkDetach(record(httpEffect, endpoint, start.ticket))
        return yield* Fiber.join(run)
      })
    )
  })
).pipe(Layer.provide(IdempotencyKeys.layer))
