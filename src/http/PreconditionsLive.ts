/**
 * The `Preconditions` middleware (src/api/Preconditions.ts) on the endpoints that read or write
 * one admin resource:
 *
 * - a read answers its 200 with the `ETag` of the body it sends;
 * - a write holds the resource's lock (src/persistence/ResourceLock.ts) while it runs: `shared`
 *   without `If-Match`, `exclusive` with it. Holding it exclusively, a conditional write reads
 *   the resource as its `GET` would answer it, compares its ETag with `If-Match` (412 when none
 *   matches), and only then runs the handler, so no other API write to the resource lands between
 *   the check and the change. Its answer carries the new ETag when it is the resource.
 *
 * Writers that do not go through the API (monitors moving a component's status, the maintenance
 * clock, incident automation) take no lock: a change of theirs between the check and the write
 * is not seen, within the handler's own duration (docs/api.md).
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"

import {
  type ConditionalResource,
  conditionalResources,
  preconditionFailed,
  Preconditions,
  ResourceAccess
} from "../api/Preconditions.js"
import type { ComponentId } from "../domain/Component.js"
import type { ComponentGroupId } from "../domain/ComponentGroup.js"
import { BadRequest, type NotFound, type ServiceUnavailable } from "../domain/Errors.js"
import type { IncidentId, IncidentTemplateId } from "../domain/Incident.js"
import type { MaintenanceId } from "../domain/Maintenance.js"
import type { MonitorId } from "../domain/Monitor.js"
import type { WebhookId } from "../domain/Webhook.js"
import { ApiKeysRepo } from "../persistence/ApiKeysRepo.js"
import { ComponentGroupsRepo } from "../persistence/ComponentGroupsRepo.js"
import { IncidentTemplatesRepo } from "../persistence/IncidentTemplatesRepo.js"
import { OrganizationRepo } from "../persistence/OrganizationRepo.js"
import { ResourceLock } from "../persistence/ResourceLock.js"
import { StatusPagesRepo } from "../persistence/StatusPagesRepo.js"
import { SubscribersRepo } from "../persistence/SubscribersRepo.js"
import { WebhooksRepo } from "../persistence/WebhooksRepo.js"
import { Components } from "../services/catalog/Components.js"
import { Incidents } from "../services/catalog/Incidents.js"
import { MaintenanceWindows } from "../services/catalog/MaintenanceWindows.js"
import { Monitors } from "../services/monitoring/Monitors.js"
import { entityTagOf, ifMatchHolds, parseIfMatch } from "./EntityTags.js"

type Reader = (id: string) => Effect.Effect<Option.Option<unknown>, ServiceUnavailable>

/** Absent instead of 404: the handler answers an unknown id as it always has. */
const found = <A>(get: Effect.Effect<A, NotFound | ServiceUnavailable>) =>
  get.pipe(Effect.map(Option.some), Effect.catchTag("NotFound", () => Effect.succeedNone))

/**
 * Each resource as its `GET` (or its list) reads it, from the database: the same services and
 * repositories.
 */
const makeReaders = Effect.gen(function*() {
  const components = yield* Components
  const groups = yield* ComponentGroupsRepo
  const pages = yield* StatusPagesRepo
  const incidents = yield* Incidents
  const templates = yield* IncidentTemplatesRepo
  const windows = yield* MaintenanceWindows
  const monitors = yield* Monitors
  const webhooks = yield* WebhooksRepo
  const subscribers = yield* SubscribersRepo
  const apiKeys = yield* ApiKeysRepo
  const organization = yield* OrganizationRepo
  return {
    components: (id) => found(components.get(id as ComponentId)),
    componentGroups: (id) => groups.findById(id as ComponentGroupId),
    statusPages: pages.findById,
    incidents: (id) => found(incidents.get(id as IncidentId)),
    incidentTemplates: (id) => templates.findById(id as IncidentTemplateId),
    maintenance: (id) => found(windows.get(id as MaintenanceId)),
    monitors: (id) => found(monitors.get(id as MonitorId)),
    webhooks: (id) => webhooks.findById(id as WebhookId),
    subscribers: subscribers.findById,
    apiKeys: apiKeys.findById,
    // From the database, not OrganizationProfile's cache: another instance's change may not have
    // reached this one's cache yet.
    organization: (id) => Effect.map(organization.find(), Option.filter((profile) => profile.id === id))
  } satisfies Record<ConditionalResource, Reader>
})

/** The JSON bytes a `GET` answers for a resource's value. */
const encoders = Object.fromEntries(
  Object.entries(conditionalResources).map(([resource, { schema }]) => {
    const encode = Schema.encodeUnknownEffect(Schema.toCodecJson(schema))
    return [resource, (value: unknown) => Effect.map(Effect.orDie(encode(value)), (json) => JSON.stringify(json))]
  })
) as Record<ConditionalResource, (value: unknown) => Effect.Effect<string>>

const malformed = new BadRequest({
  message: "If-Match must be * or a comma-separated list of entity tags as an ETag header gives them (\"…\")",
  issues: [{ path: ["If-Match"], message: "Expected * or a list of quoted entity tags" }]
})

/** The answer with the ETag of its body, when it is a JSON body. */
const withEntityTag = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.includes("json")) return response
  return HttpServerResponse.setHeader(response, "etag", entityTagOf(body.text ?? body.body))
}

const isSuccess = (response: HttpServerResponse.HttpServerResponse) => response.status >= 200 && response.status < 300

/** The `:id` of the request as the endpoint decodes it; absent when the endpoint refuses it (it answers 400 or 404). */
const idDecoders = new WeakMap<HttpApiEndpoint.Top, (params: unknown) => Option.Option<string>>()
const idOf = (endpoint: HttpApiEndpoint.Top) =>
  Effect.map(HttpRouter.params, (params) => {
    let decode = idDecoders.get(endpoint)
    if (decode === undefined) {
      const decodeParams = Schema.decodeUnknownOption(
        (endpoint.params ?? Schema.Struct({ id: Schema.String })) as Schema.Decoder<unknown>
      )
      decode = (raw) =>
        Option.flatMap(decodeParams(raw), (decoded) => Option.fromNullishOr((decoded as { id?: string }).id))
      idDecoders.set(endpoint, decode)
    }
    return decode(params)
  })

export const PreconditionsLive = Layer.effect(
  Preconditions,
  Effect.gen(function*() {
    const locks = yield* ResourceLock
    const readers: Record<ConditionalResource, Reader> = yield* makeReaders
    const organizations = yield* OrganizationRepo
    const organizationId = Effect.map(organizations.find(), Option.map((profile) => profile.id))

    const currentEntityTag = (resource: ConditionalResource, id: string) =>
      Effect.flatMap(readers[resource](id), (value) =>
        Option.isNone(value)
          ? Effect.succeedNone
          : Effect.map(encoders[resource](value.value), (json) => Option.some(entityTagOf(json))))

    const write = <E, R>(
      access: ResourceAccess["Service"],
      endpoint: HttpApiEndpoint.Top,
      handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers["if-match"]
        const condition = header === undefined ? undefined : parseIfMatch(header)
        if (header !== undefined && condition === undefined) return yield* malformed
        const fromPath = yield* idOf(endpoint)
        // The organization's PUT on its own path names no id: it is the one organization's.
        const id = Option.isNone(fromPath) && access.resource === "organization" ? yield* organizationId : fromPath
        if (Option.isNone(id)) return yield* handler
        const checked = Effect.gen(function*() {
          if (condition !== undefined) {
            // An unknown id is 404 whatever If-Match says (RFC 9110 §13.2.1): the handler answers it.
            const current = yield* currentEntityTag(access.resource, id.value)
            if (Option.isSome(current) && !ifMatchHolds(condition, current.value)) {
              return yield* preconditionFailed(access.resource)
            }
          }
          const response = yield* handler
          return access.answers && isSuccess(response) ? withEntityTag(response) : response
        })
        const key = `${access.resource}:${id.value}`
        return yield* locks.withLock(key, condition === undefined ? "shared" : "exclusive")(checked)
      })

    // BadRequest and ServiceUnavailable are declared on every endpoint by ApiErrors; the
    // middleware's own declaration adds only PreconditionFailed.
    return Preconditions.of(
      ((handler, { endpoint }) => {
        const access = Context.getOrUndefined(endpoint.annotations, ResourceAccess)
        if (access === undefined) return handler
        if (access.kind === "read") {
          return Effect.map(handler, (response) => response.status === 200 ? withEntityTag(response) : response)
        }
        return write(access, endpoint, handler)
      }) as Preconditions["Service"]
    )
  })
).pipe(
  Layer.provide([
    ResourceLock.layer,
    SubscribersRepo.layer,
    ApiKeysRepo.layer,
    ComponentGroupsRepo.layer,
    StatusPagesRepo.layer,
    IncidentTemplatesRepo.layer,
    OrganizationRepo.layer,
    WebhooksRepo.layer
  ])
)
