/**
 * Answers a request that does not match its endpoint's schemas with the contract's 400
 * `HttpApiDecodeError` `{ _tag, message, issues }`, and a body that is not valid JSON with 400
 * `BadRequest` (docs/api.md, "Errors"). Effect 4 answers both with an empty 400 of its own.
 */
import { Effect, SchemaIssue } from "effect"
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"

import { ApiErrors, type DecodeIssue, HttpApiDecodeError } from "../api/ApiErrors.js"
import { BadRequest } from "../domain/Errors.js"

/** What the platform says of a JSON body it cannot parse (effect/http-api/HttpApiBuilder). */
const invalidJsonMessage = "Expected a valid JSON body"

const unreadableBody = new BadRequest({ message: "The request could not be read: the body must be valid JSON" })

type IssueTag = DecodeIssue["_tag"]

const leafTag = (issue: SchemaIssue.Leaf): IssueTag => {
  switch (issue._tag) {
    case "MissingKey":
      return "Missing"
    case "UnexpectedKey":
      return "Unexpected"
    case "Forbidden":
      return "Forbidden"
    default:
      return "Type"
  }
}

/**
 * The tag of each issue the Standard Schema formatter lists, in its order: it walks the tree the
 * same way, one entry per leaf (a check that fails is a `Refinement`).
 */
const issueTags = (issue: SchemaIssue.Issue, check?: IssueTag): Array<IssueTag> => {
  switch (issue._tag) {
    case "Filter":
      return issueTags(issue.issue, check ?? "Refinement")
    case "Encoding":
    case "Pointer":
      return issueTags(issue.issue, check)
    case "Composite":
      return issue.issues.flatMap((inner) => issueTags(inner, check))
    case "AnyOf":
      return issue.issues.length > 0 ? issue.issues.flatMap((inner) => issueTags(inner, check)) : [check ?? "Type"]
    default:
      return [check ?? leafTag(issue)]
  }
}

const pathSegment = (key: PropertyKey): DecodeIssue["path"][number] =>
  typeof key === "symbol" ? { _tag: "symbol", key: Symbol.keyFor(key) ?? key.description ?? "" } : key

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()
const formatMessage = SchemaIssue.makeFormatterDefault()

const decodeError = (issue: SchemaIssue.Issue): HttpApiDecodeError => {
  const tags = issueTags(issue)
  return new HttpApiDecodeError({
    issues: formatIssues(issue).issues.map((entry, i) => ({
      _tag: tags[i] ?? "Type",
      path: (entry.path ?? []).map((segment) => pathSegment(typeof segment === "object" ? segment.key : segment)),
      message: entry.message
    })),
    message: formatMessage(issue)
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
export const ApiErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(ApiErrors, (error) => {
  switch (error.kind) {
    case "Body":
    case "ResponseHeaders":
      return Effect.fail(error)
    default:
      return Effect.fail(isInvalidJson(error) ? unreadableBody : decodeError(error.cause.issue))
  }
})
