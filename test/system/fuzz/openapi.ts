/**
 * Reads the service's own OpenAPI 3.1 document and lists every operation in a form the
 * generators and checks use. The document is the fuzzer's only knowledge of the API, so an
 * operation or parameter missing from it is never exercised.
 */

/** A JSON Schema (2020-12) node as it appears in the document. */
/** A status page's path below its `/p/{slug}` prefix: the same API as at the root. */
const pageApiPath = (path: string) => path.startsWith("/p/{slug}/") ? path.slice("/p/{slug}".length) : path

export type JsonSchema = { readonly [key: string]: any }

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface DocumentedHeader {
  /** As the document spells it, e.g. `ETag`. */
  readonly name: string
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface DocumentedResponse {
  /** Content type to schema; empty when the response has no body (204). */
  readonly content: Record<string, JsonSchema | undefined>
}

/** The response headers the document declares for a status, by lower-case name (HTTP names are case-insensitive). */
export type DocumentedHeaders = Record<string, DocumentedHeader>

export interface Operation {
  /** `operationId`, e.g. `components.create`. */
  readonly id: string
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** The path template, e.g. `/api/v1/admin/components/{id}`. */
  readonly path: string
  readonly pathParams: ReadonlyArray<Parameter>
  readonly queryParams: ReadonlyArray<Parameter>
  readonly headerParams: ReadonlyArray<Parameter>
  /**
   * Refuses a query parameter it does not declare (400 naming it). The document says so of
   * "every endpoint under `/api/v1` but the feeds", which answer XML, not JSON: feed readers and
   * caches add parameters of their own.
   */
  readonly refusesUnknownQuery: boolean
  readonly body: { readonly schema: JsonSchema; readonly required: boolean } | undefined
  readonly responses: Record<string, DocumentedResponse>
  /** By status, as `responses`: a status the document lists without headers has none. */
  readonly responseHeaders: Record<string, DocumentedHeaders>
  /** Needs credentials (the operation lists security requirements). */
  readonly secured: boolean
  /** The resource its `{id}` names (the path segment before it), used to pick ids the fuzzer created. */
  readonly resource: string | undefined
}

export interface ApiDocument {
  readonly raw: JsonSchema
  readonly operations: ReadonlyArray<Operation>
  /** Follows `$ref`s into `components.schemas`. */
  readonly resolve: (schema: JsonSchema) => JsonSchema
}

const methods = ["get", "post", "put", "patch", "delete"] as const

/** A feed: its success has a body, and not a JSON one (RSS, Atom). */
const answersFeed = (responses: Record<string, DocumentedResponse>) => {
  const types = Object.entries(responses).filter(([status]) => status.startsWith("2")).flatMap((
    [, response]
  ) => Object.keys(response.content))
  // The feeds are RSS and Atom; the live event stream (text/event-stream) refuses unknown queries like JSON answers.
  return types.length > 0 && types.every((type) => type.endsWith("xml"))
}

export const parseDocument = (raw: JsonSchema): ApiDocument => {
  const resolve = (schema: JsonSchema): JsonSchema => {
    let current = schema
    for (let depth = 0; typeof current?.$ref === "string" && depth < 20; depth++) {
      const name = decodeURIComponent(current.$ref.replace(/^#\/components\/schemas\//, ""))
      const target = raw.components?.schemas?.[name]
      if (target === undefined) throw new Error(`unresolvable $ref ${current.$ref}`)
      // Sibling keywords next to a $ref (bounds, descriptions) refine the target.
      const { $ref: _ref, ...siblings } = current
      current = { ...target, ...siblings }
    }
    return current
  }

  const operations: Array<Operation> = []
  for (const [path, item] of Object.entries<JsonSchema>(raw.paths ?? {})) {
    for (const method of methods) {
      const op = item[method]
      if (op === undefined) continue
      const parameters: Array<Parameter> = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((
        p: JsonSchema
      ) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: p.schema ?? { type: "string" }
      }))
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema
      const responses: Record<string, DocumentedResponse> = {}
      const responseHeaders: Record<string, DocumentedHeaders> = {}
      for (const [status, response] of Object.entries<JsonSchema>(op.responses ?? {})) {
        const content: Record<string, JsonSchema | undefined> = {}
        for (const [type, media] of Object.entries<JsonSchema>(response.content ?? {})) content[type] = media.schema
        responses[status] = { content }
        const headers: DocumentedHeaders = responseHeaders[status] = {}
        for (const [name, header] of Object.entries<JsonSchema>(response.headers ?? {})) {
          headers[name.toLowerCase()] = {
            name,
            required: header.required === true,
            schema: header.schema ?? { type: "string" }
          }
        }
      }
      const security = op.security ?? raw.security ?? []
      operations.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase() as Operation["method"],
        path,
        pathParams: parameters.filter((p) => p.in === "path"),
        queryParams: parameters.filter((p) => p.in === "query"),
        headerParams: parameters.filter((p) => p.in === "header"),
        // A status page's reads (`/p/{slug}/api/v1/status/…`) are the API's too.
        refusesUnknownQuery: pageApiPath(path).startsWith("/api/v1/") && !answersFeed(responses),
        body: bodySchema === undefined
          ? undefined
          : { schema: bodySchema, required: op.requestBody?.required === true },
        responses,
        responseHeaders,
        secured: security.length > 0 && security.every((requirement: object) => Object.keys(requirement).length > 0),
        resource: /\/([^/{}]+)\/\{[^}]+\}/.exec(pageApiPath(path))?.[1]
      })
    }
  }
  return { raw, operations, resolve }
}

export const fetchDocument = async (baseUrl: string): Promise<ApiDocument> => {
  const response = await fetch(`${baseUrl}/api/v1/openapi.json`)
  if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`)
  return parseDocument(await response.json())
}
