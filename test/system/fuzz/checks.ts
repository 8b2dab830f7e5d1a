/**
 * What every response must satisfy: no 5xx; every error a JSON body of the contract's shape
 * (`{ _tag, message }`, validation errors listing their `issues` paths, 429 with Retry-After);
 * a status the document lists for the operation, carrying the documented body and headers; and
 * 401 for a secured operation called without valid credentials (unless its body was too large to
 * read). A deliberately wrong request (category `strict`) must be refused, and a 400 must name
 * what was wrong.
 *
 * Headers: each one the document declares `required` for the status must be there, and each
 * declared one present must match its schema and its syntax (`ETag` quoted, `Link`
 * `<…>; rel="next"`, `Retry-After` seconds). A header the document does not declare is no finding
 * (transports add their own), but for those the service itself sends (`serviceHeaders`).
 */
import type { ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"

import type { Expectation } from "./deviations.js"
import type { ApiDocument, DocumentedHeaders, JsonSchema, Operation } from "./openapi.js"
import type { FuzzRequest } from "./requests.js"

export type FindingKind =
  | "serverError"
  | "errorShape"
  | "schema"
  | "undocumentedStatus"
  | "notUnauthorized"
  /** A 2xx for a request that had to be refused (an unknown field, a bad query value, an If-Match that cannot hold). */
  | "acceptedInvalid"
  /** A 400 for such a request whose issues do not name what was wrong. */
  | "unnamedRefusal"
  /** A required header missing, or a declared one not as declared. */
  | "header"
  /** One of the service's own headers on an operation and status that do not declare it. */
  | "undocumentedHeader"
  /** The retry of a request with an Idempotency-Key that was not the first answer replayed. */
  | "replay"

export interface Finding {
  readonly kind: FindingKind
  readonly reason: string
  /** The header an `undocumentedHeader` finding is about, lower-case. */
  readonly header?: string
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** The headers the service itself sends: present where the document does not declare them, they are findings. */
export const serviceHeaders = ["etag", "cache-control", "retry-after", "set-cookie", "link", "idempotent-replayed"]

const DOCUMENT_ID = "https://fuzz.invalid/openapi.json"

/** The most body the service reads (src/http/BodyLimit.ts). */
const maxBodyBytes = 1024 * 1024

/** Points `#/components/...` references at the document registered under DOCUMENT_ID. */
const rebase = (schema: unknown): unknown =>
  Array.isArray(schema)
    ? schema.map(rebase)
    : schema !== null && typeof schema === "object"
    ? Object.fromEntries(
      Object.entries(schema).map((
        [k, v]
      ) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#") ? DOCUMENT_ID + v : rebase(v)])
    )
    : schema

const mediaType = (headers: RawResponse["headers"]) =>
  String(headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()

/** The contract's error body; returns what is wrong with it, or undefined. */
export const errorShapeProblem = (response: RawResponse): string | undefined => {
  if (mediaType(response.headers) !== "application/json") {
    return `error response is not JSON (content-type ${JSON.stringify(response.headers["content-type"] ?? null)})`
  }
  let body: any
  try {
    body = JSON.parse(response.body.toString("utf8"))
  } catch {
    return "error body is not valid JSON"
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "error body is not a JSON object"
  if (typeof body._tag !== "string" || body._tag.length === 0) return "error body has no string _tag"
  if (typeof body.message !== "string") return "error body has no string message"
  if (body._tag === "HttpApiDecodeError" || body.issues !== undefined) {
    const issues = body.issues
    if (!Array.isArray(issues) || (body._tag === "HttpApiDecodeError" && issues.length === 0)) {
      return "validation error without an issues list"
    }
    if (!issues.every((i: any) => Array.isArray(i?.path) && typeof i.message === "string")) {
      return "validation issue without path array and message"
    }
  }
  if (response.status === 429) {
    const retryAfter = response.headers["retry-after"]
    if (typeof retryAfter !== "string" || !/^\d+$/.test(retryAfter)) {
      return "429 without a Retry-After header in seconds"
    }
  }
  return undefined
}

const isSuccess = (status: number) => status >= 200 && status < 300

const issuePaths = (response: RawResponse): Array<ReadonlyArray<unknown>> => {
  try {
    const issues = JSON.parse(response.body.toString("utf8"))?.issues
    return Array.isArray(issues) ? issues.map((issue) => issue?.path).filter(Array.isArray) : []
  } catch {
    return []
  }
}

const samePath = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>) =>
  a.length === b.length && a.every((step, i) => String(step) === String(b[i]))

/**
 * A deliberately wrong request must not succeed, and its 400 must name what was wrong in an
 * issue's `path`. Other refusals (401, 404, 412, 413, 429...) say nothing either way.
 */
export const expectationProblem = (expect: Expectation, response: RawResponse): Finding | undefined => {
  if (isSuccess(response.status)) {
    return { kind: "acceptedInvalid", reason: `accepted ${expect.what} (${response.status})` }
  }
  if (response.status !== 400 || expect.path === undefined) return undefined
  const paths = issuePaths(response)
  if (paths.some((path) => samePath(path, expect.path!))) return undefined
  return {
    kind: "unnamedRefusal",
    reason: `400 for ${expect.what} names no issue at ${JSON.stringify(expect.path)} (issues at ${
      paths.length === 0 ? "none" : paths.map((path) => JSON.stringify(path)).join(", ")
    })`
  }
}

/** An entity tag as RFC 9110 §8.8.3 writes it: quoted, optionally weak. */
const entityTag = /^(W\/)?"[\x21\x23-\x7E\x80-\xFF]*"$/

/**
 * The syntax of the service's headers, which their declared schemas (`type: string`) do not
 * spell out: what is wrong with `value`, or undefined. A `Link` names the next page of the same
 * path, relative.
 */
export const headerSyntaxProblem = (name: string, value: string, requestPath: string): string | undefined => {
  switch (name) {
    case "etag":
      return entityTag.test(value) ? undefined : `ETag ${JSON.stringify(value)} is not a quoted entity tag`
    case "retry-after":
      return /^\d+$/.test(value) ? undefined : `Retry-After ${JSON.stringify(value)} is not whole seconds`
    case "link": {
      const target = /^<(\/[^<>\s]*)>; rel="next"$/.exec(value)?.[1]
      if (target === undefined) return `Link ${JSON.stringify(value)} is not <…>; rel="next"`
      const [linked, asked] = [target, requestPath].map((path) => new URL(path, "http://link.invalid").pathname)
      return linked === asked ? undefined : `Link names ${linked}, not the path asked (${asked})`
    }
    default:
      return undefined
  }
}

const headerValues = (value: string | Array<string> | undefined): Array<string> =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

/**
 * The response's headers against those the document declares for its status (`documented`,
 * absent for a status the document does not list, which is a finding of its own). `conforms`
 * says whether a header's text matches its declared schema.
 */
export const headerProblems = (
  opId: string,
  documented: DocumentedHeaders | undefined,
  response: RawResponse,
  requestPath: string,
  conforms: (schema: JsonSchema, value: string) => boolean
): Array<Finding> => {
  if (documented === undefined) return []
  const findings: Array<Finding> = []
  for (const [name, declared] of Object.entries(documented)) {
    const values = headerValues(response.headers[name])
    if (values.length === 0) {
      if (declared.required) {
        findings.push({ kind: "header", reason: `${declared.name} is required on ${response.status} but missing` })
      }
      continue
    }
    for (const value of values) {
      const problem = conforms(declared.schema, value)
        ? headerSyntaxProblem(name, value, requestPath)
        : `${declared.name} ${JSON.stringify(value)} does not match its declared schema`
      if (problem !== undefined) findings.push({ kind: "header", reason: problem })
    }
  }
  for (const name of serviceHeaders) {
    if (response.headers[name] !== undefined && documented[name] === undefined) {
      findings.push({
        kind: "undocumentedHeader",
        header: name,
        reason: `${name}: ${
          JSON.stringify(response.headers[name])
        } on ${opId} ${response.status}, which declares no ${name}`
      })
    }
  }
  return findings
}

/**
 * The second of two identical requests with one Idempotency-Key, after a first that succeeded:
 * the first answer again, marked `Idempotent-Replayed: true`.
 */
export const replayProblem = (first: RawResponse, second: RawResponse): Finding | undefined => {
  if (!isSuccess(first.status)) return undefined
  if (second.status !== first.status) {
    return { kind: "replay", reason: `the retry answered ${second.status}, the first request ${first.status}` }
  }
  if (second.headers["idempotent-replayed"] !== "true") {
    return { kind: "replay", reason: "the retry has no Idempotent-Replayed: true" }
  }
  return second.body.equals(first.body) ? undefined : { kind: "replay", reason: "the retry's body is not the first's" }
}

export const makeChecker = (document: ApiDocument) => {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false })
  ajv.addSchema({ $id: DOCUMENT_ID, components: rebase(document.raw.components ?? {}) })
  const validators = new Map<JsonSchema, ValidateFunction>()
  const validatorFor = (schema: JsonSchema) => {
    let validate = validators.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(rebase(schema) as object)
      validators.set(schema, validate)
    }
    return validate
  }

  /** A header's text against its schema: numbers as numbers (`Retry-After: 30`), the rest as strings. */
  const conforms = (schema: JsonSchema, value: string) => {
    const type = document.resolve(schema).type
    const numeric = (type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(value)
    return validatorFor(schema)(numeric ? Number(value) : value)
  }

  /** The documented body for a documented status (an undocumented one is a finding of its own). */
  const schemaProblem = (op: Operation, response: RawResponse): string | undefined => {
    // Whatever the document says: a 304 has no body (RFC 9110 §15.4.5).
    if (response.status === 304 && response.body.length > 0) return "304 with a body"
    const documented = op.responses[String(response.status)]
    if (documented === undefined) return undefined
    const types = Object.keys(documented.content)
    if (types.length === 0) {
      return response.body.length === 0
        ? undefined
        : `status ${response.status} is documented without a body but has one`
    }
    const type = mediaType(response.headers)
    if (!types.includes(type)) return `content-type ${JSON.stringify(type)} is not one documented (${types.join(", ")})`
    const schema = documented.content[type]
    if (schema === undefined || type !== "application/json") return undefined
    let body: unknown
    try {
      body = JSON.parse(response.body.toString("utf8"))
    } catch {
      return "documented JSON body is not valid JSON"
    }
    const validate = validatorFor(schema)
    if (validate(body)) return undefined
    const error = validate.errors?.[0]
    return `body does not match the documented ${response.status} schema: ${error?.instancePath || "/"} ${
      error?.message ?? ""
    }`
  }

  return (op: Operation, request: FuzzRequest, response: RawResponse): Array<Finding> => {
    const findings: Array<Finding> = []
    if (response.status >= 500) findings.push({ kind: "serverError", reason: `status ${response.status}` })
    if (response.status >= 400) {
      const problem = errorShapeProblem(response)
      if (problem !== undefined) findings.push({ kind: "errorShape", reason: problem })
    }
    if (op.responses[String(response.status)] === undefined) {
      findings.push({
        kind: "undocumentedStatus",
        reason: `status ${response.status} is not documented for ${op.id} (${Object.keys(op.responses).join(", ")})`
      })
    }
    const problem = schemaProblem(op, response)
    if (problem !== undefined) findings.push({ kind: "schema", reason: problem })
    // A body over 1 MB is refused (413) before anything reads the request, credentials included
    // (src/http/BodyLimit.ts, docs/api.md "Errors"), and so is a request line or headers over
    // 16 KB (431, by Node itself): those answers come before the 401.
    const refusedUnread = (response.status === 413 && Buffer.byteLength(request.body ?? "") > maxBodyBytes) ||
      response.status === 431
    if (op.secured && request.credentials !== "key" && response.status !== 401 && !refusedUnread) {
      findings.push({
        kind: "notUnauthorized",
        reason: `${request.credentials} credentials answered ${response.status}, not 401`
      })
    }
    const expected = request.expect === undefined ? undefined : expectationProblem(request.expect, response)
    if (expected !== undefined) findings.push(expected)
    const requestPath = request.target.split("?")[0]!
    findings.push(
      ...headerProblems(op.id, op.responseHeaders[String(response.status)], response, requestPath, conforms)
    )
    return findings
  }
}
