/**
 * Turns whatever a request failed with into words for people, with a message per field where
 * the failure names fields: the server's `issues` (HttpApiDecodeError, BadRequest) and the
 * typed client's own check of the payload against the same schemas before sending it.
 */
import { Cause, Option, Schema } from "effect"
import { HttpClientError } from "effect/http"

import { fieldIssues } from "../../../../api/IssueMessages.js"

export interface Failure {
  /**
   * `notFound`: the item (or an invitation's link) is gone; a page may say more than the server's words.
   * `preconditionFailed`: someone else changed the item since the form read it (412 on `If-Match`); an
   * editor over the item read afresh (ui/resources.tsx, FreshEditor) names it and offers their version.
   */
  readonly kind: "unauthorized" | "notFound" | "preconditionFailed" | "other"
  /** One sentence for the whole form. */
  readonly message: string
  /** Messages by the name of the field they concern (the first element of an issue's path). */
  readonly fields: Readonly<Record<string, string>>
}

interface Issue {
  readonly path: ReadonlyArray<unknown>
  readonly message: string
}

const sentence = (text: string) => text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1)

const markedBelow = "Please correct the fields marked below."

/**
 * The message of each field an issue names, the first one for a field. An issue inside a field
 * (a recurrence's interval, a header by name) names the part: "Interval must be …"; an array's
 * element is the field's own message ("Unknown component …").
 */
const fieldMessages = (issues: ReadonlyArray<Issue>): Record<string, string> => {
  const fields: Record<string, string> = {}
  for (const issue of issues) {
    const [field, ...inside] = issue.path
    if (typeof field !== "string" && typeof field !== "number") continue
    const part = inside.filter((key) => typeof key === "string").join(".")
    fields[String(field)] ??= sentence(part.length > 0 ? `${part} ${issue.message}` : issue.message)
  }
  return fields
}

/**
 * Field messages from `issues`, and `message` above the form; an issue of the whole request (no
 * path) has no field to stand by, so `message` says it.
 */
const withIssues = (message: string, issues: ReadonlyArray<Issue>): Failure => ({
  kind: "other",
  message,
  fields: fieldMessages(issues)
})

const isIssue = (value: unknown): value is Issue =>
  typeof value === "object" && value !== null && "path" in value && Array.isArray(value.path) &&
  "message" in value && typeof value.message === "string"

/** The client's failures before any answer came: the request could not be sent. */
const requestFailures: ReadonlySet<string> = new Set(["TransportError", "EncodeError", "InvalidUrlError"])

const hasTag = (error: unknown): error is { readonly _tag: string; readonly message?: unknown } =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"

const describeError = (error: unknown): Failure => {
  if (Schema.isSchemaError(error)) {
    // The typed client's own check, with the server's words: the same schemas, the same messages.
    const issues = fieldIssues(error.issue)
    const whole = issues.find((issue) => issue.path.length === 0)
    return withIssues(whole ? sentence(`${whole.message}.`) : markedBelow, issues)
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
      // A schema's refusal and a rule's (BadRequest) alike: one sentence above, a message per field.
      const issues = "issues" in error && Array.isArray(error.issues) ? error.issues.filter(isIssue) : []
      return withIssues(message || "The request was refused.", issues)
    }
    case "Unauthorized":
      return { kind: "unauthorized", message: message || "Please sign in.", fields: {} }
    case "NotFound":
      return { kind: "notFound", message: message || "It no longer exists.", fields: {} }
    // The form was opened on a version someone else has changed since (If-Match): say so and keep
    // what was typed. This sentence is for a form that cannot read the item again itself.
    case "PreconditionFailed":
      return {
        kind: "preconditionFailed",
        message: "Someone else changed this item since you opened it, so it was not saved. Cancel and open it " +
          "again to see their change; copy what you typed first if you want to keep it.",
        fields: {}
      }
    default:
      return { kind: "other", message: message || `The request failed (${error._tag}).`, fields: {} }
  }
}

export const describeFailure = (cause: Cause.Cause<unknown>): Failure =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => ({ kind: "other", message: "Something unexpected went wrong.", fields: {} }),
    onSome: describeError
  })
