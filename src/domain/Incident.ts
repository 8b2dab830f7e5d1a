import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentId } from "./Component.js"
import { IdString, Name } from "./Fields.js"
import { NullableTimestamp } from "./Timestamps.js"

export const IncidentStatus = Schema.Literal("investigating", "identified", "monitoring", "resolved")
export type IncidentStatus = typeof IncidentStatus.Type

/** The statuses an open incident can be in; `resolved` is reached through the resolve operation. */
export const OpenIncidentStatus = Schema.Literal("investigating", "identified", "monitoring")

export const IncidentSeverity = Schema.Literal("none", "minor", "major", "critical")
export type IncidentSeverity = typeof IncidentSeverity.Type

export const IncidentId = IdString.pipe(Schema.brand("IncidentId"))
export type IncidentId = typeof IncidentId.Type

export const IncidentTitle = Name(200)
export const IncidentMessage = Name(5000)

/** Component ids named in a body; duplicates are ignored. */
export const ComponentIds = Schema.Array(ComponentId).pipe(Schema.maxItems(100))

/** One entry of an incident's timeline. */
export class IncidentUpdate extends Schema.Class<IncidentUpdate>("IncidentUpdate")({
  id: Schema.String,
  status: IncidentStatus,
  message: Schema.String,
  createdAt: Schema.DateTimeUtc
}) {}

/** An incident as operators see it: the timeline (`updates`) oldest first; `message` is the latest entry's. */
export class Incident extends Model.Class<Incident>("Incident")({
  id: Model.Generated(IncidentId),
  title: IncidentTitle,
  status: IncidentStatus,
  severity: IncidentSeverity,
  message: Schema.String,
  componentIds: Schema.Array(ComponentId),
  updates: Schema.Array(IncidentUpdate),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate,
  resolvedAt: NullableTimestamp
}) {}

/** Body of POST /admin/incidents. Defaults: `investigating`, severity `minor`, no components. */
export class CreateIncident extends Schema.Class<CreateIncident>("CreateIncident")({
  title: IncidentTitle,
  status: Schema.optional(OpenIncidentStatus),
  severity: Schema.optional(IncidentSeverity),
  message: IncidentMessage,
  componentIds: Schema.optional(ComponentIds)
}) {}

/** Body of PUT /admin/incidents/:id: a partial update. The timeline only grows through updates. */
export class UpdateIncident extends Schema.Class<UpdateIncident>("UpdateIncident")({
  title: Schema.optional(IncidentTitle),
  status: Schema.optional(OpenIncidentStatus),
  severity: Schema.optional(IncidentSeverity),
  componentIds: Schema.optional(ComponentIds)
}) {}

/** Body of POST /admin/incidents/:id/updates; status `resolved` resolves the incident. */
export class AddIncidentUpdate extends Schema.Class<AddIncidentUpdate>("AddIncidentUpdate")({
  status: IncidentStatus,
  message: IncidentMessage
}) {}

/** Optional body of PATCH /admin/incidents/:id/resolve. */
export class ResolveIncident extends Schema.Class<ResolveIncident>("ResolveIncident")({
  message: Schema.optional(IncidentMessage)
}) {}

/** An incident as the public sees it: only public components are named. */
export class PublicIncident extends Schema.Class<PublicIncident>("PublicIncident")({
  id: Schema.String,
  title: Schema.String,
  status: IncidentStatus,
  severity: IncidentSeverity,
  message: Schema.String,
  componentIds: Schema.Array(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc,
  resolvedAt: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/** GET /status/incidents/:id: the incident with its whole timeline, oldest first. */
export class PublicIncidentDetail extends PublicIncident.extend<PublicIncidentDetail>("PublicIncidentDetail")({
  updates: Schema.Array(IncidentUpdate)
}) {}

/**
 * `offset` of a page: any integer >= 0 (contract). Past every incident the page is empty, so
 * offsets beyond what the database's OFFSET takes are read as its largest, with the same answer.
 */
const PageOffset = Schema.transform(
  Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()),
  Schema.Int,
  { strict: true, decode: (offset) => Math.min(offset, 2147483647), encode: (offset) => offset }
)

/** Query of GET /status/incidents. */
export const PublicIncidentsQuery = Schema.Struct({
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))),
  offset: Schema.optional(PageOffset),
  status: Schema.optional(IncidentStatus)
})
