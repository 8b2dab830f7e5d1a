/**
 * `Idempotency-Key` on the admin POSTs (docs/api.md, "Retries: Idempotency-Key"): a client that
 * sends one may retry the request safely. The same key, from the same principal, on the same
 * method, path and body gets the first answer again (`Idempotent-Replayed: true`) without the work
 * being done twice; the key on another request is 422 `IdempotencyKeyReused`; the key of a
 * request still running is 409 `Conflict`. The middleware's layer is src/http/IdempotencyLive.ts.
 */
import { Context } from "effect"
import { type HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"

import { BadRequest, Conflict, ServiceUnavailable } from "../domain/Errors.js"
import { IdempotencyKeyReused } from "../domain/IdempotencyKey.js"
import { mapEndpoints, withInnermost } from "./InnermostMiddleware.js"

export { IdempotencyKeyReused } from "../domain/IdempotencyKey.js"

export const idempotencyKeyHeader = "idempotency-key"
export const idempotentReplayedHeader = "idempotent-replayed"

/**
 * Declares 422 `IdempotencyKeyReused` and 409 `Conflict` (the key's first request still running)
 * on the endpoints it is applied to, besides the API-wide 400 (a malformed key) and 503. Apply it
 * with `idempotentPosts`, which places it around the handler, inside `Authentication`: it needs
 * the principal, and only a request that passed authentication may claim a key or see an answer.
 */
export class Idempotency extends HttpApiMiddleware.Service<Idempotency>()("Idempotency", {
  error: [BadRequest, IdempotencyKeyReused, Conflict, ServiceUnavailable]
}) {}

const parameterDescription = "Makes the request safe to retry: 1–255 printable ASCII characters, unique per " +
  "operation (a UUID). For 24 hours the same key, from the same API key or user, on the same method, path and " +
  "body (compared as JSON: whitespace and key order aside) answers the first answer again, with " +
  "`Idempotent-Replayed: true`, without doing the work twice. Answers stored: those of a handler that ran " +
  "(2xx, 4xx); a 5xx, and answers given before the handler ran (401, 403, 415, 400 for a body that does not " +
  "match the schema), are not, so the retry runs again. The same key on another request is **422** " +
  "`IdempotencyKeyReused`; while its first request is still running, **409** `Conflict`. A malformed key is " +
  "**400** `BadRequest`."

const parameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: parameterDescription,
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" }
}

/** What a replayed answer carries, whatever its status. */
const replayedHeader = {
  description: "`true` on an answer given again for a retry with the same `Idempotency-Key`; absent otherwise.",
  required: false,
  schema: { type: "string", const: "true" }
}

/**
 * Adds the header to an operation of the document, and `Idempotent-Replayed` to each of its
 * answers (any may be replayed), after whatever transform the endpoint had.
 */
const withParameter = (endpoint: HttpApiEndpoint.Top) => {
  const before = Context.getOption(endpoint.annotations, OpenApi.Transform)
  return endpoint.annotate(OpenApi.Transform, (operation) => {
    const op = before._tag === "Some" ? before.value(operation) : operation
    const responses = Object.fromEntries(
      Object.entries<OpenApi.OpenApiSpecResponse>(op.responses ?? {}).map(([status, response]) => [
        status,
        { ...response, headers: { ...response.headers, "Idempotent-Replayed": replayedHeader } }
      ])
    )
    return { ...op, parameters: [...(op.parameters ?? []), parameter], responses }
  })
}

/** The group's endpoints with `Idempotency` on its POSTs. */
type IdempotentPosts<Endpoints> = Endpoints extends { readonly method: "POST" }
  ? HttpApiEndpoint.AddMiddleware<Endpoints, Idempotency>
  : Endpoints

/**
 * The group with `Idempotency` on each POST, innermost: `endpoint.middleware` would put it outside
 * the group's `Authentication`, where the principal is not known yet. The header is documented
 * on those operations; it is no part of their `headers` schema, which would make the typed client
 * ask every caller for it (the client sends it with `withIdempotencyKey`, src/client/).
 */
export const idempotentPosts = <
  Id extends string,
  Endpoints extends HttpApiEndpoint.Constraint,
  TopLevel extends boolean
>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
): HttpApiGroup.HttpApiGroup<Id, IdempotentPosts<Endpoints>, TopLevel> => {
  return mapEndpoints(
    group as unknown as HttpApiGroup.Top,
    (endpoint) => endpoint.method === "POST" ? withInnermost(withParameter(endpoint), Idempotency) : endpoint
  ) as never
}
