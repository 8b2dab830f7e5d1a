/**
 * A monitor's parse error as the scheduler logs it: the tree of what is wrong and where, with
 * the values of `headers` and `body` masked. The formatter prints the values it was given, and
 * a row written behind the API's back may hold a credential in either (a header value with a
 * line break, a body too long for a job): the log says which field, never what it held.
 */
import { ParseResult } from "effect"

import { maskedHeaderValue } from "../domain/Monitor.js"

const secretFields: ReadonlyArray<PropertyKey> = ["headers", "body"]

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

const redact = (issue: ParseResult.ParseIssue, secret: boolean): ParseResult.ParseIssue => {
  const actual = (value: unknown) => (secret ? mask(value) : withoutSecrets(value))
  switch (issue._tag) {
    case "Type":
      return new ParseResult.Type(issue.ast, actual(issue.actual), issue.message)
    case "Forbidden":
      return new ParseResult.Forbidden(issue.ast, actual(issue.actual), issue.message)
    case "Unexpected":
      return new ParseResult.Unexpected(actual(issue.actual), issue.message)
    case "Missing":
      return issue
    case "Pointer": {
      const path = Array.isArray(issue.path) ? issue.path : [issue.path]
      const below = secret || path.some((key) => secretFields.includes(key))
      return new ParseResult.Pointer(issue.path, actual(issue.actual), redact(issue.issue, below))
    }
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, actual(issue.actual), issue.kind, redact(issue.issue, secret))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, actual(issue.actual), issue.kind, redact(issue.issue, secret))
    case "Composite": {
      const issues = Array.isArray(issue.issues)
        ? issue.issues.map((inner) => redact(inner, secret)) as [
          ParseResult.ParseIssue,
          ...Array<ParseResult.ParseIssue>
        ]
        : redact(issue.issues as ParseResult.ParseIssue, secret)
      return new ParseResult.Composite(issue.ast, actual(issue.actual), issues, actual(issue.output))
    }
  }
}

/** The error's tree (TreeFormatter), with header values and the body masked. */
export const formatMonitorError = (error: ParseResult.ParseError): string =>
  ParseResult.TreeFormatter.formatIssueSync(redact(error.issue, false))
