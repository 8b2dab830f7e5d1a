/**
 * Turns whatever a request failed with into words for people, with a message per field where
 * the failure names fields: the server's `issues` (HttpApiDecodeError, BadRequest) and the
 * typed client's own check of the payload against the same schemas before sending it.
 */
import { Cause, Option, Schema, SchemaIssue } from "effect"
import { HttpClientError } from "effect/http"

export interface Failure {
  readonly kind: "unauthorized" | "other"
  /** One sentence for the whole form. */
  readonly message: string
  /** Messages by the name of the field they concern (the first element of an issue's path). */
  readonly fields: Readonly<Record<string, string>>
}

interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const sentence = (text: string) => text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1)

const withIssues = (message: string, issues: ReadonlyArray<Issue>): Failure => {
  const fields: Record<string, string> = {}
  const general: Array<string> = []
  for (const issue of issues) {
    const field = issue.path[0]
    if (field === undefined) general.push(sentence(issue.message))
    else fields[String(field)] ??= sentence(issue.message)
  }
  return {
    kind: "other",
    message: general.length > 0
      ? general.join(" ")
      : Object.keys(fields).length > 0
      ? "Please correct the fields marked below."
      : message,
    fields
  }
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A schema error's issues, one per offending value, each with its path (property keys) and message. */
const issuesOf = (error: Schema.SchemaError): ReadonlyArray<Issue> =>
  formatIssues(error.issue).issues.map(({ message, path }) => ({
    message,
    path: (path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment)
  }))

/** The client's failures before any answer came: the request could not be sent. */
const requestFailures: ReadonlySet<string> = new Set(["TransportError", "EncodeError", "InvalidUrlError"])

const hasTag = (error: unknown): error is { readonly _tag: string; readonly message?: unknown } =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"

const describeError = (error: unknown): Failure => {
  if (Schema.isSchemaError(error)) {
    return withIssues("The form has invalid values.", issuesOf(error))
  }
  if (HttpClientError.isHttpClientError(error)) {
    return requestFailures.has(error.reason._tag)
      ? { kind: "other", message: "The server cannot be reached. Check the connection and try again.", fields: {} }
      : { kind: "other", message: "The server gave an unexpected answer. Try again in a moment.", fields: {} }
  }
  if (!hasTag(error)) return { kind: "other", message: "Something unexpected went wrong.", fields: {} }
  const message = typeof error.message === "string" && error.message.length > 0 ? sentence(error.message) : ""
  switch (error._tag) {
    case "HttpApiDecodeError":
    case "BadRequest": {
      const issues = "issues" in error && Array.isArray(error.issues) ? (error.issues as ReadonlyArray<Issue>) : []
      return withIssues(message || "The request was refused.", issues)
    }
    case "Unauthorized":
      return { kind: "unauthorized", message: message || "Please sign in.", fields: {} }
    default:
      return { kind: "other", message: message || `The request failed (${error._tag}).`, fields: {} }
  }
}

export const describeFailure = (cause: Cause.Cause<unknown>): Failure =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => ({ kind: "other", message: "Something unexpected went wrong.", fields: {} }),
    onSome: describeError
  })
