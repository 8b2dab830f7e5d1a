/**
 * The errors every endpoint of the API may answer, whatever it declares itself: a request that
 * does not match the endpoint's schemas (`HttpApiDecodeError`, 400), a body that is not JSON
 * (`BadRequest`, 400), a body over 1 MB (413), a database away (503), and the answers Node gives
 * before any handler runs (408, 431). `Api` applies `ApiErrors` to all its groups, so the
 * document lists them on every operation and handlers may fail with them.
 */
import { Schema, type SchemaAST } from "effect"
import { type HttpApi, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"

import {
  BadRequest,
  PayloadTooLarge,
  RequestHeaderFieldsTooLarge,
  RequestTimeout,
  ServiceUnavailable
} from "../domain/Errors.js"
import { TaggedError } from "../domain/Named.js"
import { mapEndpoints, withInnermost } from "./InnermostMiddleware.js"

/** A step of an issue's path: a field name, an array index, or a symbol by its key. */
const PropertyKey = Schema.Union([
  Schema.String,
  Schema.Finite,
  Schema.Struct({ _tag: Schema.Literal("symbol"), key: Schema.String }).annotate({
    description: "an object to be decoded into a globally shared symbol"
  })
]).annotate({ identifier: "PropertyKey" })

/**
 * One offending field of a request, with where it is (`path`) and what was expected there, in
 * words. The service answers `Missing`, `Unexpected`, `Type`, `Refinement` and `Forbidden`; the
 * other tags are kept from effect 3's list, which clients may match on.
 */
export const DecodeIssue = Schema.Struct({
  _tag: Schema.Literals([
    "Pointer",
    "Unexpected",
    "Missing",
    "Composite",
    "Refinement",
    "Transformation",
    "Type",
    "Forbidden"
  ]).annotate({
    description: "The kind of issue: `Missing` (a required field), `Unexpected` (an unknown field or query " +
      "parameter), `Type` (a value of the wrong type or not one of the allowed values), `Refinement` (a value " +
      "outside its bounds or format)"
  }),
  path: Schema.Array(PropertyKey).annotate({
    description: "Where the offending value is: the field's name, then a nested field's or an array element's " +
      "index; empty for the whole body"
  }),
  message: Schema.String.annotate({
    description: "What was expected there, following the field's name: \"is required\", \"must be one of a, b, c\", " +
      "\"is not a known field (did you mean isPublic?)\""
  })
}).annotate({
  identifier: "Issue",
  description: "One offending field of a request"
})
export type DecodeIssue = typeof DecodeIssue.Type

/**
 * 400: the request's path parameters, query, headers or body do not match the endpoint's
 * schemas. `message` is one sentence for people; `issues` has one entry per offending field.
 * The body of effect 3's `HttpApiDecodeError`, which effect 4 no longer answers on its own (it
 * answers an empty 400).
 */
export class HttpApiDecodeError extends TaggedError<HttpApiDecodeError>()("HttpApiDecodeError", {
  issues: Schema.Array(DecodeIssue),
  message: Schema.String
}, {
  description: "The request did not match the expected schema",
  httpApiStatus: 400
}) {}

/**
 * How the API reads request bodies and queries (`HttpApi.PayloadParseOptions`,
 * `HttpApi.QueryParseOptions`): a field or parameter the endpoint does not declare is refused,
 * not dropped (a misspelt `ispublic` would otherwise be a silent no-op), at any depth; and every
 * offending field is reported, not only the first. Headers stay lenient: a request carries many
 * the API does not declare.
 */
export const strictParseOptions: SchemaAST.ParseOptions = { onExcessProperty: "error", errors: "all" }

/** Adds the API-wide errors to every endpoint; its layer (src/http/ApiErrors.ts) answers decoding failures. */
export class ApiErrors extends HttpApiMiddleware.Service<ApiErrors>()("ApiErrors", {
  error: [
    HttpApiDecodeError,
    BadRequest,
    ServiceUnavailable,
    PayloadTooLarge,
    RequestTimeout,
    RequestHeaderFieldsTooLarge
  ]
}) {}

/**
 * Refuses a query string on an endpoint that declares no query, as the query schemas of the
 * others do under `strictParseOptions` (the platform would ignore it): `ApiErrors` answers 400
 * `HttpApiDecodeError` naming each parameter, so this declares no error of its own (the
 * document stays as it was). The feeds and the health probes take any query. Its layer is in
 * src/http/ApiErrors.ts; apply it with `strictQueries`.
 */
export class StrictQuery extends HttpApiMiddleware.Service<StrictQuery>()("StrictQuery") {}

/**
 * The API with `StrictQuery` on every endpoint, innermost: `api.middleware` would put it outside
 * the groups' `Authentication`, and a request without credentials is 401 whatever its query, as
 * it is whatever its body (the endpoint's own schemas are checked after authentication too).
 */
export const strictQueries = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const added = api.middleware(StrictQuery)
  const groups = Object.values(added.groups as unknown as Record<string, HttpApiGroup.Top>).map((group) =>
    mapEndpoints(group, (endpoint) => withInnermost(endpoint, StrictQuery))
  )
  return (groups.length === 0 ? added : added.add(...(groups as [HttpApiGroup.Top]))) as typeof added
}
