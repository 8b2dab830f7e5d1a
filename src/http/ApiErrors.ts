/**
 * Answers a request that does not match its endpoint's schemas with the contract's 400
 * `HttpApiDecodeError` `{ _tag, message, issues }`, worded for people (api/IssueMessages), and a
 * body that is not valid JSON with 400 `BadRequest` (docs/api.md, "Errors"). Effect 4 answers
 * both with an empty 400 of its own. `StrictQueryLive` refuses a query on the endpoints that
 * declare none, which the platform would ignore; the API's parse options (api/ApiErrors,
 * `strictParseOptions`) refuse unknown parameters on the others.
 */
import { Effect, Layer, Option, Schema, SchemaIssue, type Types } from "effect"
import { HttpServerRequest } from "effect/http"
import { type HttpApiEndpoint, HttpApiError, HttpApiMiddleware } from "effect/http-api"

import { ApiErrors, type DecodeIssue, HttpApiDecodeError, StrictQuery } from "../api/ApiErrors.js"
import { describeIssue, type RequestPart } from "../api/IssueMessages.js"
import { BadRequest } from "../domain/Errors.js"

/** What the platform says of a JSON body it cannot parse (effect/http-api/HttpApiBuilder). */
const invalidJsonMessage = "Expected a valid JSON body"

const unreadableBody = new BadRequest({ message: "The request could not be read: the body must be valid JSON" })

const partOf: Record<HttpApiError.HttpApiSchemaError["kind"], RequestPart> = {
  Params: "path",
  Headers: "headers",
  Query: "query",
  Payload: "body",
  Body: "body",
  ResponseHeaders: "headers"
}

const pathSegment = (key: PropertyKey): DecodeIssue["path"][number] =>
  typeof key === "symbol" ? { _tag: "symbol", key: Symbol.keyFor(key) ?? key.description ?? "" } : key

const decodeError = (issue: SchemaIssue.Issue, part: RequestPart): HttpApiDecodeError => {
  const { issues, message } = describeIssue(issue, part)
  return new HttpApiDecodeError({
    issues: issues.map((found) => ({ _tag: found.tag, path: found.path.map(pathSegment), message: found.message })),
    message
  })
}

const isInvalidJson = (error: HttpApiError.HttpApiSchemaError) => {
  const issue = error.cause.issue
  return error.kind === "Payload" && issue._tag === "InvalidValue" && issue.annotations?.message === invalidJsonMessage
}

/**
 * Request decoding failures (path parameters, query, headers, body) become the contract's
 * answers; a response that fails to encode stays the platform's 500.
 */
const answer = (error: HttpApiError.HttpApiSchemaError) => {
  switch (error.kind) {
    case "Body":
    case "ResponseHeaders":
      return Effect.fail(error)
    default:
      return Effect.fail(isInvalidJson(error) ? unreadableBody : decodeError(error.cause.issue, partOf[error.kind]))
  }
}

export const ApiErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(ApiErrors, answer)

/**
 * The endpoints that take any query string: the feeds, which feed readers and caches decorate
 * with parameters of their own, and the health probes outside /api/v1. The status page, badge
 * and widget, outside the API, take any query too (docs/api.md, "Errors").
 */
const takesAnyQuery = (endpoint: HttpApiEndpoint.Top) => {
  // A status page's reads (`/p/:slug/api/v1/status/…`) are the API's too.
  const path = endpoint.path.startsWith("/p/:slug/") ? endpoint.path.slice("/p/:slug".length) : endpoint.path
  return !path.startsWith("/api/v1/") || path === "/api/v1/status/rss" || path === "/api/v1/status/atom"
}

const noParameters = Schema.Struct({}).ast

/**
 * Each parameter of a query an endpoint does not declare, refused as a strict query schema
 * refuses an unknown one (an empty struct would accept any, whatever the parse options), for
 * `ApiErrors` to answer. The middleware's type knows only the errors its service declares.
 */
const refuseAnyQuery = Effect.flatMap(HttpServerRequest.ParsedSearchParams, (query) => {
  const [first, ...rest] = Object.keys(query).map((key) =>
    new SchemaIssue.Pointer([key], new SchemaIssue.UnexpectedKey(noParameters))
  )
  if (first === undefined) return Effect.void
  const issue = new SchemaIssue.Composite(noParameters, [first, ...rest])
  const refused = new HttpApiError.HttpApiSchemaError({ kind: "Query", cause: new Schema.SchemaError(issue) })
  return Effect.fail(refused as unknown as Types.unhandled)
})

const hasBody = (headers: Readonly<Record<string, string | undefined>>) =>
  (headers["content-length"] ?? "0") !== "0" || headers["transfer-encoding"] !== undefined

/**
 * A body sent to an endpoint that takes none (pause, publish, test…), refused like an unknown
 * field of a strict body rather than ignored: each field of an object is refused by name; another
 * JSON value (a list, a number) is refused whole. Empty, `{}` and `null` pass: clients send them
 * for "nothing". JsonBodies has already refused a body that is not JSON; BodyLimit, one over 1 MB.
 */
const refuseAnyBody = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  if (!hasBody(request.headers)) return Effect.void
  return Effect.flatMap(Effect.orElseSucceed(request.json, () => null), (body) => {
    if (body === null || (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0)) {
      return Effect.void
    }
    const issue = typeof body === "object" && !Array.isArray(body)
      ? new SchemaIssue.Composite(
        noParameters,
        Object.keys(body).map((key) => new SchemaIssue.Pointer([key], new SchemaIssue.UnexpectedKey(noParameters))) as [
          SchemaIssue.Issue,
          ...Array<SchemaIssue.Issue>
        ]
      )
      : new SchemaIssue.InvalidType(noParameters, Option.some(body))
    const refused = new HttpApiError.HttpApiSchemaError({ kind: "Payload", cause: new Schema.SchemaError(issue) })
    return Effect.fail(refused as unknown as Types.unhandled)
  })
})

const takesNoBody = (endpoint: HttpApiEndpoint.Top) => endpoint.payload.size === 0 && endpoint.method !== "GET"

export const StrictQueryLive = Layer.succeed(
  StrictQuery,
  (httpEffect, { endpoint }) => {
    const query = endpoint.query !== undefined || takesAnyQuery(endpoint)
      ? httpEffect
      : Effect.andThen(refuseAnyQuery, httpEffect)
    return takesNoBody(endpoint) ? Effect.andThen(refuseAnyBody, query) : query
  }
)
