/**
 * A monitor's parse error as the scheduler logs it: the tree of what is wrong and where, with
 * the values of `headers`, `body` and `password` masked. The formatter prints the values it was given, and
 * a row written behind the API's back may hold a credential in either (a header value with a
 * line break, a body too long for a job): the log says which field, never what it held.
 */
import { type Schema, SchemaIssue } from "effect"

import { maskedHeaderValue } from "../domain/Monitor.js"

const secretFields: ReadonlyArray<PropertyKey> = ["headers", "body", "password"]

/** Every value masked, the shape kept: a record shows its header names, not their values. */
const mask = (value: unknown): unknown => {
  if (value === null || value === undefined) return value
  if (Array.isArray(value)) return value.map(mask)
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v)]))
  return maskedHeaderValue
}

/** A value above the secret fields (the row, the job): a copy with those fields masked. */
const withoutSecrets = (value: unknown): unknown => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  const copy: Record<PropertyKey, unknown> = { ...value }
  for (const field of secretFields) if (field in copy) copy[field] = mask(copy[field])
  return copy
}

/** The input an issue reports (only when decoded with `reportInput`), masked, as a rebuilt issue takes it. */
const inputOf = (issue: SchemaIssue.Issue, actual: (value: unknown) => unknown) =>
  SchemaIssue.hasInput(issue)
    ? { input: actual(issue.input), options: { reportInput: true } }
    : { input: undefined, options: undefined }

const redact = (issue: SchemaIssue.Issue, secret: boolean): SchemaIssue.Issue => {
  const actual = (value: unknown) => (secret ? mask(value) : withoutSecrets(value))
  const { input, options } = inputOf(issue, actual)
  switch (issue._tag) {
    case "InvalidType":
      return new SchemaIssue.InvalidType(issue.ast, input, options)
    case "InvalidValue":
      return new SchemaIssue.InvalidValue(issue.annotations, input, options)
    case "Forbidden":
      return new SchemaIssue.Forbidden(issue.annotations, input, options)
    case "UnexpectedKey":
      return new SchemaIssue.UnexpectedKey(issue.ast, input, options)
    case "OneOf":
      return new SchemaIssue.OneOf(issue.ast, issue.successes, input, options)
    case "MissingKey":
      return issue
    case "Pointer": {
      const below = secret || issue.path.some((key) => secretFields.includes(key))
      return new SchemaIssue.Pointer(issue.path, redact(issue.issue, below))
    }
    case "Filter":
      return new SchemaIssue.Filter(issue.filter, redact(issue.issue, secret), input, options)
    case "Encoding":
      return new SchemaIssue.Encoding(issue.ast, redact(issue.issue, secret), input, options)
    case "Composite": {
      const [first, ...rest] = issue.issues
      return new SchemaIssue.Composite(
        issue.ast,
        [redact(first, secret), ...rest.map((inner) => redact(inner, secret))],
        input,
        options
      )
    }
    case "AnyOf":
      return new SchemaIssue.AnyOf(issue.ast, issue.issues.map((inner) => redact(inner, secret)), input, options)
  }
}

const formatIssue = SchemaIssue.makeFormatterDefault()

/** The error's issues (the default formatter), with header values and the body masked. */
export const formatMonitorError = (error: Schema.SchemaError): string => formatIssue(redact(error.issue, false))
