/**
 * What the OpenAPI document (/api/v1/openapi.json, shown at /docs) says beyond what Effect's
 * generator derives from the declaration (docs/api.md, "The OpenAPI document"):
 *
 * - `info`: the version of package.json, the project as contact, its license; `servers`: this
 *   service, wherever it runs, so "Try it out" calls the host that served the page;
 * - the response headers the server sends outside the schemas: `ETag`, `Cache-Control` and `Vary`
 *   of the public reads and their **304** (with the `If-None-Match` that asks for it), `Link` of
 *   the paged lists, `Retry-After` of every 429, `Set-Cookie` of sign-in, sign-out, accepting an
 *   invitation, changing a password and ending one's own session; the live event stream's
 *   `Cache-Control` and `X-Accel-Buffering`, and the `Retry-After` of its 503;
 * - query parameters that decode to an integer as `type: integer` with their bounds, default and
 *   description: on the wire they are text, so the generator shows a string.
 *
 * It adds to what other transforms wrote (their headers and parameters win), and runs after the
 * API's own transform, if any.
 */
import { Context, type JsonSchema, Schema, SchemaAST } from "effect"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "effect/http-api"

import packageJson from "../../package.json" with { type: "json" }
import { RequiredRole, requiredRoleExtension, type Role } from "../domain/Role.js"
import { AuthApi } from "./AuthApi.js"
import { EventsApi, liveEvents } from "./EventsApi.js"
import { PageStatusApi } from "./PageStatusApi.js"
import { StatusApi } from "./StatusApi.js"

type Operation = OpenApi.OpenAPISpecOperation
type Header = OpenApi.OpenAPISpecHeader

// ---------------------------------------------------------------------------------------------
// Headers

/** A header the answer always carries. */
const header = (description: string, schema: JsonSchema.JsonSchema = { type: "string" }): Header => ({
  description,
  required: true,
  schema
})

/** What every answer of a public read carries, 200 and 304 alike (src/public/PublicResponses.ts). */
const cacheHeaders: Record<string, Header> = {
  ETag: header(
    "The entity tag of this answer: strong (`\"…\"`) for the plain bytes, weak (`W/\"…\"`) for the gzipped " +
      "ones. Send it back as `If-None-Match` to get **304** while it is current."
  ),
  // PublicResponses.publicMaxAge; a test compares them.
  "Cache-Control": header(
    "Browsers and caches may reuse the answer for 5 seconds, then revalidate it with `If-None-Match`.",
    { type: "string", const: "public, max-age=5" }
  ),
  Vary: header(
    "The answer depends on `Accept-Encoding`: one of 1 kB or more is gzipped for clients that accept gzip.",
    { type: "string", const: "Accept-Encoding" }
  )
}

const ifNoneMatch: OpenApi.OpenAPISpecParameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "Optional. The `ETag`s of answers the client keeps, comma-separated, or `*`: when one of them " +
    "(strong or weak) is the current answer's, the answer is **304** without a body.",
  schema: { type: "string" }
}

const notModified = (): OpenApi.OpenApiSpecResponse => ({
  description: "Not Modified: `If-None-Match` names the current answer, which the client already has. No body.",
  headers: { ...cacheHeaders }
})

const linkHeader = (startsAt: string): Header => ({
  description: `Present while more items follow: \`<…>; rel="next"\`, the path and query of the next page, with ` +
    `its ${startsAt}. Follow it as it is; a page without it is the last.`,
  required: false,
  schema: { type: "string" }
})

const retryAfter = header(
  "Seconds to wait before trying again: the limit's window closes then (the body's `retryAfterSeconds`).",
  { type: "integer", minimum: 0 }
)

/** The cookies of sign-in and sign-out (src/http/AuthHttp.ts), by operation id. */
const cookieHeaders: Record<string, { readonly status: string; readonly header: Header }> = {
  [`${AuthApi.identifier}.signIn`]: {
    status: "200",
    header: header(
      "Two cookies: `__Host-session=<token>; Max-Age=<SESSION_MAX_AGE>; Path=/; HttpOnly; Secure; SameSite=Lax`, " +
        "the new session, and `__Host-device=<token>; Max-Age=7776000; Path=/; HttpOnly; Secure; " +
        "SameSite=Strict`, which marks the browser as a known device of the user for 90 days."
    )
  },
  [`${AuthApi.identifier}.signOut`]: {
    status: "204",
    header: header(
      "`__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax`: clears the session cookie."
    )
  },
  [`${AuthApi.identifier}.acceptInvitation`]: {
    status: "200",
    header: header("The two cookies of `POST /api/v1/auth/signin`: the new session, and the device cookie.")
  },
  [`${AuthApi.identifier}.changePassword`]: {
    status: "204",
    header: header(
      "`__Host-device=<token>; Max-Age=7776000; Path=/; HttpOnly; Secure; SameSite=Strict`: a new device " +
        "cookie, since the old one was signed over the old password."
    )
  },
  [`${AuthApi.identifier}.revokeSession`]: {
    status: "204",
    header: {
      description: "When the session ended is the request's own: `__Host-session=; Max-Age=0; Path=/; HttpOnly; " +
        "Secure; SameSite=Lax`, which clears its cookie.",
      required: false,
      schema: { type: "string" }
    }
  }
}

/** The live event stream's headers (src/http/EventsHttp.ts), by status. */
const eventStreamHeaders: Record<string, Record<string, Header>> = {
  "200": {
    "Cache-Control": header("Neither the browser nor a cache keeps the stream.", { type: "string", const: "no-cache" }),
    "X-Accel-Buffering": header("Tells nginx to pass each event on at once rather than buffer the answer.", {
      type: "string",
      const: "no"
    })
  },
  "503": {
    "Retry-After": {
      description: `Present when the instance has its ${liveEvents.maxStreams} streams open or is stopping: ` +
        "seconds to wait before connecting again.",
      required: false,
      schema: { type: "integer", minimum: 0 }
    }
  }
}

/** `headers` with `added` where it has no header of the same name (in any case). */
const mergeHeaders = (headers: Record<string, Header> | undefined, added: Record<string, Header>) => {
  const taken = new Set(Object.keys(headers ?? {}).map((name) => name.toLowerCase()))
  const missing = Object.entries(added).filter(([name]) => !taken.has(name.toLowerCase()))
  return { ...headers, ...Object.fromEntries(missing) }
}

const withHeaders = (operation: Operation, status: string, added: Record<string, Header>): Operation => {
  const responses = operation.responses as Record<string, OpenApi.OpenApiSpecResponse>
  const response = responses[status]
  if (response === undefined) return operation
  return {
    ...operation,
    responses: { ...responses, [status]: { ...response, headers: mergeHeaders(response.headers, added) } }
  }
}

// ---------------------------------------------------------------------------------------------
// Integer query parameters

/** The schema a value passes through while decoded: `ast`, then each schema it is encoded as. */
const levelsOf = (ast: SchemaAST.AST): Array<SchemaAST.AST> => [
  ast,
  ...(ast.encoding ?? []).flatMap((link) => levelsOf(link.to))
]

const numberOf = (value: unknown) => typeof value === "number" ? value : undefined

/**
 * The JSON Schema of a query parameter that decodes to an integer, or undefined. Its bounds are
 * those of every number it passes through (`PageOffset` checks `>= 0` before it clamps), its
 * description and default those of its annotations.
 */
const integerParameterSchema = (ast: SchemaAST.AST): JsonSchema.JsonSchema | undefined => {
  if (!SchemaAST.isNumber(ast)) return undefined
  const rendered = levelsOf(ast).filter(SchemaAST.isNumber).map((level) =>
    Schema.toJsonSchemaDocument(Schema.toType(Schema.make(level))).schema
  )
  if (!rendered.some((schema) => schema.type === "integer")) return undefined
  const minimums = rendered.flatMap((schema) => numberOf(schema.minimum) ?? [])
  const maximums = rendered.flatMap((schema) => numberOf(schema.maximum) ?? [])
  const annotated = (key: string) => rendered.find((schema) => schema[key] !== undefined)?.[key]
  return {
    type: "integer",
    ...(minimums.length > 0 ? { minimum: Math.max(...minimums) } : {}),
    ...(maximums.length > 0 ? { maximum: Math.min(...maximums) } : {}),
    ...(annotated("default") !== undefined ? { default: annotated("default") } : {}),
    ...(annotated("description") !== undefined ? { description: annotated("description") } : {})
  }
}

/** The operation id the generator gives an endpoint. */
const operationIdOf = (group: HttpApiGroup.Top, endpoint: HttpApiEndpoint.Top) =>
  Context.getOrElse(
    endpoint.annotations,
    OpenApi.Identifier,
    () => group.topLevel ? endpoint.identifier : `${group.identifier}.${endpoint.identifier}`
  )

/** What the declaration tells of each operation, by operation id: its integer query parameters, and the public reads. */
const reflectApi = (api: HttpApi.Top) => {
  const integers = new Map<string, ReadonlyMap<string, JsonSchema.JsonSchema>>()
  const publicReads = new Set<string>()
  const roles = new Map<string, Role>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const id = operationIdOf(group, endpoint)
      const role = Context.getOption(endpoint.annotations, RequiredRole)
      if (role._tag === "Some") roles.set(id, role.value)
      if (group.identifier === StatusApi.identifier || group.identifier === PageStatusApi.identifier) {
        publicReads.add(id)
      }
      // The declared struct itself: its properties keep their encodings, which hold bounds too.
      const query = endpoint.query?.ast
      if (query === undefined || !SchemaAST.isObjects(query)) return
      const found = query.propertySignatures.flatMap((property) => {
        const schema = integerParameterSchema(property.type)
        return schema === undefined ? [] : [[String(property.name), schema] as const]
      })
      if (found.length > 0) integers.set(id, new Map(found))
    }
  })
  return { integers, publicReads, roles }
}

/**
 * The parameters with integer query values as integers, and every description on the parameter
 * itself, where Swagger UI shows it.
 */
const describedParameters = (
  parameters: ReadonlyArray<OpenApi.OpenAPISpecParameter>,
  integers: ReadonlyMap<string, JsonSchema.JsonSchema> | undefined
) =>
  parameters.map((parameter) => {
    const integer = parameter.in === "query" ? integers?.get(parameter.name) : undefined
    const { description, ...schema } = (integer ?? parameter.schema) as JsonSchema.JsonSchema
    return typeof description === "string" && parameter.description === undefined
      ? { ...parameter, description, schema }
      : integer === undefined
      ? parameter
      : { ...parameter, schema }
  })

// ---------------------------------------------------------------------------------------------
// The document

const methods = ["get", "put", "post", "delete", "patch"] as const

const completeOperation = (
  operation: Operation,
  context: {
    readonly method: string
    readonly publicReads: ReadonlySet<string>
    readonly roles: ReadonlyMap<string, Role>
  },
  integers: ReadonlyMap<string, JsonSchema.JsonSchema> | undefined
): Operation => {
  let op: Operation = { ...operation, parameters: describedParameters(operation.parameters ?? [], integers) }
  const role = context.roles.get(op.operationId)
  if (role !== undefined) {
    // The least role, for machines (the extension) and for people (the description's last line).
    op = {
      ...op,
      [requiredRoleExtension]: role,
      description:
        `${op.description ?? ""}\n\nNeeds the role **${role}** or higher (owner > admin > editor > viewer); ` +
        "below it, **403** `Forbidden`."
    } as Operation
  }
  const query = (name: string) => op.parameters.some((parameter) => parameter.in === "query" && parameter.name === name)
  if (context.publicReads.has(op.operationId)) {
    op = withHeaders(op, "200", cacheHeaders)
    const responses = op.responses as Record<string, OpenApi.OpenApiSpecResponse>
    op = {
      ...op,
      parameters: op.parameters.some((parameter) => parameter.name.toLowerCase() === "if-none-match")
        ? op.parameters
        : [...op.parameters, ifNoneMatch],
      responses: { ...responses, "304": responses["304"] ?? notModified() }
    }
  }
  // A paged list: the admin lists page by cursor, the public incidents by offset.
  if (context.method === "get" && query("limit")) {
    const link = { Link: linkHeader(query("cursor") ? "`cursor`" : "`offset`") }
    // A 304 carries the headers its 200 would (the public incidents' list has one).
    op = withHeaders(withHeaders(op, "200", link), "304", link)
  }
  op = withHeaders(op, "429", { "Retry-After": retryAfter })
  const cookie = cookieHeaders[op.operationId]
  if (cookie !== undefined) op = withHeaders(op, cookie.status, { "Set-Cookie": cookie.header })
  if (op.operationId === `${EventsApi.identifier}.stream`) {
    for (const [status, headers] of Object.entries(eventStreamHeaders)) op = withHeaders(op, status, headers)
    const responses = op.responses as Record<string, OpenApi.OpenApiSpecResponse>
    const success = responses["200"]
    if (success !== undefined) {
      const description = "The events, as they come: the answer stays open until the client or the server ends it."
      op = { ...op, responses: { ...responses, "200": { ...success, description } } }
    }
  }
  return op
}

/** package.json's `homepage`, else its `repository` (a URL, or `{ url }`), when it names an http(s) one. */
const projectUrl = ((): string | undefined => {
  const fields = packageJson as { readonly homepage?: unknown; readonly repository?: unknown }
  const repository = typeof fields.repository === "object" && fields.repository !== null
    ? (fields.repository as { readonly url?: unknown }).url
    : fields.repository
  return [fields.homepage, repository]
    .flatMap((value) => typeof value === "string" ? [value.replace(/^git\+/, "").replace(/\.git$/, "")] : [])
    .find((url) => /^https?:\/\//.test(url))
})()

/** Completes the document of `api`; reads the declaration only when the document is made (once, the server's). */
const complete = (api: HttpApi.Top) => (spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const { integers, publicReads, roles } = reflectApi(api)
  const completePath = (item: OpenApi.OpenAPISpecPathItem): OpenApi.OpenAPISpecPathItem =>
    Object.fromEntries(
      Object.entries(item).map(([key, value]) =>
        (methods as ReadonlyArray<string>).includes(key)
          ? [
            key,
            completeOperation(
              value as Operation,
              { method: key, publicReads, roles },
              integers.get((value as Operation).operationId)
            )
          ]
          : [key, value]
      )
    )
  return {
    ...spec,
    info: {
      ...spec.info,
      // The contact's `url` must be absolute: the service's own address is known only where it runs.
      contact: { name: packageJson.name, ...(projectUrl === undefined ? {} : { url: projectUrl }) }
    } as OpenApi.OpenAPISpecInfo,
    paths: Object.fromEntries(Object.entries(spec.paths).map(([path, item]) => [path, completePath(item)]))
  }
}

/**
 * The API with its document completed: version, license and servers as annotations, the rest
 * by a transform that runs after the API's own.
 */
export const openApiDocument = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): HttpApi.HttpApi<Id, Groups> => {
  const before = Context.getOption(api.annotations, OpenApi.Transform)
  const completed = complete(api as unknown as HttpApi.Top)
  return api
    .annotate(OpenApi.Version, packageJson.version)
    .annotate(OpenApi.License, { name: packageJson.license, identifier: packageJson.license })
    .annotate(OpenApi.Servers, [{ url: "/", description: "This service: the host that served this document" }])
    .annotate(
      OpenApi.Transform,
      // Under an app's own API (`addHttpApi`) this transform becomes each group's and gets a tag,
      // not the document: it leaves the tag alone (the app can apply `openApiDocument` to its API).
      (spec) =>
        "paths" in spec
          ? completed((before._tag === "Some" ? before.value(spec) : spec) as OpenApi.OpenAPISpec)
          : spec
    )
}
