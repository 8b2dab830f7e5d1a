/**
 * The errors every endpoint of the API may answer, whatever it declares itself: a request that
 * does not match the endpoint's schemas (`HttpApiDecodeError`, 400), a body that is not JSON
 * (`BadRequest`, 400), a body over 1 MB (413), a database away (503), and the answers Node gives
 * before any handler runs (408, 431). `Api` applies `ApiErrors` to all its groups, so the
 * document lists them on every operation and handlers may fail with them.
 */
import { Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"

import {
  BadRequest,
  PayloadTooLarge,
  RequestHeaderFieldsTooLarge,
  RequestTimeout,
  ServiceUnavailable
} from "../domain/Errors.js"
import { TaggedError } from "../domain/Named.js"

/** A step of an issue's path: a field name, an array index, or a symbol by its key. */
const PropertyKey = Schema.Union([
  Schema.String,
  Schema.Finite,
  Schema.Struct({ _tag: Schema.Literal("symbol"), key: Schema.String }).annotate({
    description: "an object to be decoded into a globally shared symbol"
  })
]).annotate({ identifier: "PropertyKey" })

/** One offending value of a request, with where it is (`path`) and what is wrong with it. */
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
  ]).annotate({ description: "The tag identifying the type of parse issue" }),
  path: Schema.Array(PropertyKey).annotate({ description: "The path to the property where the issue occurred" }),
  message: Schema.String.annotate({ description: "A descriptive message explaining the issue" })
}).annotate({
  identifier: "Issue",
  description: "Represents an error encountered while parsing a value to match the schema"
})
export type DecodeIssue = typeof DecodeIssue.Type

/**
 * 400: the request's path parameters, query, headers or body do not match the endpoint's
 * schemas; `issues` names each offending `path`. The body of effect 3's `HttpApiDecodeError`,
 * which effect 4 no longer answers on its own (it answers an empty 400).
 */
export class HttpApiDecodeError extends TaggedError<HttpApiDecodeError>()("HttpApiDecodeError", {
  issues: Schema.Array(DecodeIssue),
  message: Schema.String
}, {
  description: "The request did not match the expected schema",
  httpApiStatus: 400
}) {}

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
