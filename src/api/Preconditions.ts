/**
 * Optimistic concurrency on the admin resources: a `GET` of one resource, and every write that
 * answers it, carries its `ETag`; a write on one resource sent with `If-Match` runs only while the
 * resource is still as the client read it, else it answers 412 `PreconditionFailed`
 * (docs/api.md, "Concurrent edits: ETag and If-Match"). The middleware's layer is in
 * src/http/PreconditionsLive.ts.
 */
import { Context, Schema, SchemaAST } from "effect"
import { type HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"

import { ApiKey } from "../domain/Auth.js"
import { Component } from "../domain/Component.js"
import { ComponentGroup } from "../domain/ComponentGroup.js"
import { Incident } from "../domain/Incident.js"
import { IncidentTemplate } from "../domain/IncidentTemplate.js"
import { Maintenance } from "../domain/Maintenance.js"
import { Monitor } from "../domain/Monitor.js"
import { TaggedError } from "../domain/Named.js"
import { Organization } from "../domain/Organization.js"
import { StatusPage } from "../domain/StatusPage.js"
import { Subscriber } from "../domain/Subscriber.js"
import { Webhook } from "../domain/Webhook.js"
import { mapEndpoints, withInnermost } from "./InnermostMiddleware.js"

/** 412: `If-Match` names none of the resource's current entity tags. */
export class PreconditionFailed extends TaggedError<PreconditionFailed>()(
  "PreconditionFailed",
  { message: Schema.String },
  {
    description: "The resource changed since the `If-Match` ETag was read: read it again and retry",
    httpApiStatus: 412
  }
) {}

/**
 * The admin resources that answer an `ETag` and honour `If-Match`, by API group: what a message
 * calls one, and its JSON representation (what a `GET` answers, and the list's elements).
 */
export const conditionalResources = {
  components: { noun: "component", schema: Component.json },
  componentGroups: { noun: "component group", schema: ComponentGroup.json },
  statusPages: { noun: "status page", schema: StatusPage },
  incidents: { noun: "incident", schema: Incident.json },
  incidentTemplates: { noun: "incident template", schema: IncidentTemplate.json },
  maintenance: { noun: "maintenance window", schema: Maintenance.json },
  monitors: { noun: "monitor", schema: Monitor.json },
  webhooks: { noun: "webhook", schema: Webhook.json },
  subscribers: { noun: "subscriber", schema: Subscriber.json },
  apiKeys: { noun: "API key", schema: ApiKey.json },
  organization: { noun: "organization", schema: Organization.json }
} as const

export type ConditionalResource = keyof typeof conditionalResources

export const preconditionFailed = (resource: ConditionalResource) =>
  new PreconditionFailed({
    message: `The ${conditionalResources[resource].noun} changed since you read it: read it again and retry`
  })

/**
 * What an endpoint does to one resource: reads it (`GET` answering its representation), or
 * writes it (any other method on a path naming its `:id`); `answers` when a success answers the
 * resource's representation, which then carries its ETag.
 */
export class ResourceAccess extends Context.Service<ResourceAccess, {
  readonly resource: ConditionalResource
  readonly kind: "read" | "write"
  readonly answers: boolean
}>()("ResourceAccess") {}

/**
 * Runs after authentication on the endpoints `conditional` marks: a write waits for the
 * resource's lock, checks `If-Match`, and answers the new ETag; a read answers the ETag.
 */
export class Preconditions extends HttpApiMiddleware.Service<Preconditions>()("Preconditions", {
  error: PreconditionFailed
}) {}

const ifMatchParameter = {
  name: "If-Match",
  in: "header",
  required: false,
  description: "Optional. The `ETag` the resource had when it was read (a `GET`, or the answer of a write), or " +
    "`*`: the write is made only if the resource is unchanged since, else it answers **412** `PreconditionFailed` " +
    "and changes nothing. Several tags may be listed, comma-separated; a weak tag (`W/\"…\"`) never matches. An " +
    "unknown id is 404 whatever `If-Match` says; a header that is not `*` or a list of quoted tags is 400.",
  schema: { type: "string" }
}

const etagHeader = {
  description: "The strong entity tag of the resource as a `GET` now answers it; send it back as `If-Match`.",
  schema: { type: "string" }
}

/** What the transform reads of an OpenAPI operation. */
interface Operation {
  readonly parameters?: ReadonlyArray<unknown>
  readonly responses?: Readonly<Record<string, { readonly content?: unknown; readonly headers?: object }>>
}

/** The operation's document with `If-Match` (writes) and `ETag` on the answers that carry the resource. */
const documented = (access: ResourceAccess["Service"]) => (operation: Operation): Operation => {
  const responses = Object.fromEntries(
    Object.entries(operation.responses ?? {})
      // A read checks nothing: the middleware's 412 is not among its answers.
      .filter(([status]) => access.kind === "write" || status !== "412")
      .map(([status, response]) =>
        access.answers && /^2\d\d$/.test(status) && response.content !== undefined
          ? [status, { ...response, headers: { ...response.headers, ETag: etagHeader } }]
          : [status, response]
      )
  )
  return access.kind === "write"
    ? { ...operation, parameters: [...(operation.parameters ?? []), ifMatchParameter], responses }
    : { ...operation, responses }
}

const accessOf = (resource: ConditionalResource, endpoint: HttpApiEndpoint.Top) => {
  const identifier = SchemaAST.resolveIdentifier(conditionalResources[resource].schema.ast)
  const answers = [...endpoint.success].some((schema) => SchemaAST.resolveIdentifier(schema.ast) === identifier)
  if (endpoint.method === "GET") return answers ? { resource, kind: "read" as const, answers } : undefined
  // The organization is one: its PUT on the group's own path writes it too.
  const onOne = endpoint.path.split("/").includes(":id") || (resource === "organization" && endpoint.method === "PUT")
  return onOne ? { resource, kind: "write" as const, answers } : undefined
}

/**
 * The endpoints on one resource's path, which may answer 412. (The organization's `GET`, on the
 * group's own path, gets the middleware too; it never fails.)
 */
type OnOneResource<Endpoints, Id> = Endpoints extends { readonly path: `${string}/:id${string}` }
  ? HttpApiEndpoint.AddMiddleware<Endpoints, Preconditions>
  : Id extends "organization" ?
    Endpoints extends { readonly method: "PUT" } ? HttpApiEndpoint.AddMiddleware<Endpoints, Preconditions>
    : Endpoints
  : Endpoints

/**
 * `group` with `Preconditions` on each endpoint that reads or writes one resource, marked with
 * its `ResourceAccess` and documented with `If-Match` and `ETag`. Innermost: `endpoint.middleware`
 * would put it outside the group's `Authentication`, so an anonymous request could read and lock a
 * resource before its 401; and apply it after `idempotentPosts`, so that a retry with the same
 * `Idempotency-Key` replays the first answer instead of meeting its own change as a 412.
 */
export const conditional = <
  Id extends ConditionalResource,
  Endpoints extends HttpApiEndpoint.Constraint,
  TopLevel extends boolean
>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
): HttpApiGroup.HttpApiGroup<Id, OnOneResource<Endpoints, Id>, TopLevel> => {
  return mapEndpoints(group as unknown as HttpApiGroup.Top, (endpoint) => {
    const access = accessOf(group.identifier, endpoint)
    if (access === undefined) return endpoint
    const before = Context.getOption(endpoint.annotations, OpenApi.Transform)
    const document = documented(access)
    const annotated = endpoint
      .annotate(ResourceAccess, access)
      .annotate(
        OpenApi.Transform,
        (operation) => document(before._tag === "Some" ? before.value(operation) : operation)
      )
    return withInnermost(annotated, Preconditions)
  }) as never
}
