/**
 * What every response must satisfy: no 5xx; every error a JSON body of the contract's shape
 * (`{ _tag, message }`, validation errors listing their `issues` paths, 429 with Retry-After);
 * a status the document lists for the operation, carrying the documented body; and 401 for a
 * secured operation called without valid credentials (unless its body was too large to read).
 */
import type { ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"

import type { ApiDocument, JsonSchema, Operation } from "./openapi.js"
import type { FuzzRequest } from "./requests.js"

export type FindingKind = "serverError" | "errorShape" | "schema" | "undocumentedStatus" | "notUnauthorized"

export interface Finding {
  readonly kind: FindingKind
  readonly reason: string
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

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

  /** The documented body for a documented status (an undocumented one is a finding of its own). */
  const schemaProblem = (op: Operation, response: RawResponse): string | undefined => {
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
    return findings
  }
}
