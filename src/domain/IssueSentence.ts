/**
 * The one sentence a 400 says of its issues (docs/api.md, "Errors"): "The request body is
 * invalid: status must be one of a, b, c." Shared by the schemas' refusals (api/IssueMessages)
 * and the rules' (`BadRequest.fromIssues`), so both read alike.
 */

/** The part of the request a refusal is about. */
export type RequestPart = "body" | "query" | "path" | "headers"

/** What the sentence needs of an issue: where (`path`, array elements by index) and what is wrong. */
export interface SentenceIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** At most this many issues are named in the sentence. */
const namedInSentence = 5
/** Longest key of the input repeated in a message or a path. */
export const maxKeyLength = 100

export const shortKey = (key: string) => key.length > maxKeyLength ? `${key.slice(0, maxKeyLength)}…` : key

const identifier = /^[A-Za-z_$][\w$]*$/

/** `recurrence.frequency`, `componentIds[0]`, `headers["X-Api-Key"]`. */
export const pathWords = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment, i) =>
    typeof segment === "number"
      ? `[${segment}]`
      : typeof segment === "symbol"
      ? `[${String(segment)}]`
      : identifier.test(segment)
      ? `${i === 0 ? "" : "."}${shortKey(segment)}`
      : `[${JSON.stringify(shortKey(segment))}]`
  ).join("")

const subjects: Record<RequestPart, { whole: string; one: string; many: string }> = {
  body: { whole: "The request body", one: "field", many: "fields" },
  query: { whole: "The query", one: "query parameter", many: "query parameters" },
  path: { whole: "The path", one: "path parameter", many: "path parameters" },
  headers: { whole: "The headers", one: "header", many: "headers" }
}

const endSentence = (text: string) => /[.?!]$/.test(text) ? text : `${text}.`

/**
 * The one sentence for the whole refusal: "The request body is invalid: status must be one of
 * a, b, c." or "2 fields are invalid: name is required; url must be an absolute http(s) URL."
 */
export const summary = (issues: ReadonlyArray<SentenceIssue>, part: RequestPart = "body"): string => {
  const { whole, many } = subjects[part]
  const clause = (issue: SentenceIssue) =>
    issue.path.length === 0 ? `${whole.toLowerCase()} ${issue.message}` : `${pathWords(issue.path)} ${issue.message}`
  if (issues.length === 0) return `${whole} is invalid.`
  if (issues.length === 1) {
    const [only] = issues as [SentenceIssue]
    return endSentence(only.path.length === 0 ? `${whole} ${only.message}` : `${whole} is invalid: ${clause(only)}`)
  }
  const named = issues.slice(0, namedInSentence).map(clause)
  const rest = issues.length - named.length
  return endSentence(`${issues.length} ${many} are invalid: ${named.join("; ")}${rest > 0 ? `; and ${rest} more` : ""}`)
}
