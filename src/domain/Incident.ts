import { Schema, SchemaTransformation } from "effect"
import { Model } from "effect/schema"

import { ComponentId, ComponentStatus } from "./Component.js"
import { Id, IdString, Name, NumberFromString } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { NullableTimestamp } from "./Timestamps.js"

export const IncidentStatus = Schema.Literals(["investigating", "identified", "monitoring", "resolved"])
export type IncidentStatus = typeof IncidentStatus.Type

/** The statuses an open incident can be in; `resolved` is reached through the resolve operation. */
export const OpenIncidentStatus = Schema.Literals(["investigating", "identified", "monitoring"])

export const IncidentSeverity = Schema.Literals(["none", "minor", "major", "critical"])
export type IncidentSeverity = typeof IncidentSeverity.Type

export const IncidentId = IdString.pipe(Schema.brand("IncidentId"))
export type IncidentId = typeof IncidentId.Type

export const IncidentTitle = Name(200)
export const IncidentMessage = Name(5000)

/** Component ids named in a body; duplicates are ignored. */
export const ComponentIds = Schema.Array(ComponentId).check(Schema.isMaxLength(100))

/** One entry of an incident's timeline. */
export class IncidentUpdate extends Class<IncidentUpdate>("IncidentUpdate")({
  id: Schema.String,
  status: IncidentStatus,
  message: Schema.String,
  createdAt: Schema.DateTimeUtcFromString
}) {}

/** Markdown of a postmortem: 1–50,000 characters after trimming. */
export const PostmortemBody = Name(50000)

/**
 * A resolved incident's postmortem as operators see it. `publishedAt` is when it was first
 * published: kept by later edits, and by unpublishing (publishing again shows the original date).
 */
export class IncidentPostmortem extends Class<IncidentPostmortem>("IncidentPostmortem")({
  body: Schema.String,
  published: Schema.Boolean,
  publishedAt: Schema.NullOr(Schema.DateTimeUtcFromString),
  updatedAt: Schema.DateTimeUtcFromString
}) {}

/** Body of PUT /admin/incidents/:id/postmortem: the whole postmortem, written over any earlier one. */
export class SetPostmortem extends Class<SetPostmortem>("SetPostmortem")({
  body: PostmortemBody,
  published: Schema.Boolean
}) {}

/** The postmortem as the public sees it: only a published one. */
export class PublicPostmortem extends Class<PublicPostmortem>("PublicPostmortem")({
  body: Schema.String,
  publishedAt: Schema.DateTimeUtcFromString
}) {}

/** Who opened an incident: an operator (or their automation through the API), or a monitor's incident policy. */
export const IncidentSource = Schema.Literals(["manual", "monitor"])

/**
 * Of an incident a monitor opened: `active` while the automation moves its status and resolves
 * it, `handed_over` once an operator has edited, updated or resolved it (docs/status-model.md,
 * "Automatic incidents"). Null for manual incidents.
 */
export const IncidentAutomation = Schema.Literals(["active", "handed_over"])
export type IncidentAutomation = typeof IncidentAutomation.Type

/**
 * Component statuses an incident sets with its change (`componentStatuses`), at most 100; the
 * components named are added to the incident's.
 */
export const ComponentStatuses = Schema.Record(ComponentId, ComponentStatus).check(
  Schema.makeFilter((statuses) => Object.keys(statuses).length <= 100 || "must name at most 100 components")
)
export type ComponentStatuses = typeof ComponentStatuses.Type

/** An incident as operators see it: the timeline (`updates`) oldest first; `message` is the latest entry's. */
export class Incident extends Model.Class<Incident>("Incident")({
  id: Generated(IncidentId),
  title: IncidentTitle,
  status: IncidentStatus,
  severity: IncidentSeverity,
  message: Schema.String,
  componentIds: Schema.Array(ComponentId),
  updates: Schema.Array(IncidentUpdate),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate,
  resolvedAt: NullableTimestamp,
  postmortem: Schema.NullOr(IncidentPostmortem),
  /** False for a draft: seen only by operators, until published. */
  published: Schema.Boolean,
  /** Whether the public sees it: published, and made public by an operator (docs/api.md, "Public visibility"). */
  isPublic: Schema.Boolean,
  source: IncidentSource,
  monitorId: Schema.NullOr(Schema.String),
  automation: Schema.NullOr(IncidentAutomation)
}) {
  /** The JSON variant, named `Incident.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Incident.json" })
}

/** Declared here, not in IncidentTemplate.ts, because CreateIncident names it and that module imports this one. */
export const IncidentTemplateId = Id("IncidentTemplateId")
export type IncidentTemplateId = typeof IncidentTemplateId.Type

/**
 * Body of POST /admin/incidents. With `templateId`, the template's fields fill in those the body
 * leaves out; without one, `title` and `message` are required (checked by the service, 400).
 * Defaults: `investigating`, severity `minor`, no components, published (`published: false`
 * opens a draft).
 */
export class CreateIncident extends Class<CreateIncident>("CreateIncident")({
  templateId: Schema.optionalKey(IncidentTemplateId),
  title: Schema.optionalKey(IncidentTitle),
  status: Schema.optionalKey(OpenIncidentStatus),
  severity: Schema.optionalKey(IncidentSeverity),
  message: Schema.optionalKey(IncidentMessage),
  componentIds: Schema.optionalKey(ComponentIds),
  componentStatuses: Schema.optionalKey(ComponentStatuses),
  published: Schema.optionalKey(Schema.Boolean)
}) {}

/** Body of PUT /admin/incidents/:id: a partial update. The timeline only grows through updates. */
export class UpdateIncident extends Class<UpdateIncident>("UpdateIncident")({
  title: Schema.optionalKey(IncidentTitle),
  status: Schema.optionalKey(OpenIncidentStatus),
  severity: Schema.optionalKey(IncidentSeverity),
  componentIds: Schema.optionalKey(ComponentIds),
  componentStatuses: Schema.optionalKey(ComponentStatuses),
  /** Makes it public (true) or private (false): an operator's explicit choice, applied after `componentIds`. */
  isPublic: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * Body of POST /admin/incidents/:id/updates; status `resolved` resolves the incident, and only
 * then may `restoreComponents` be true.
 */
export class AddIncidentUpdate extends Class<AddIncidentUpdate>("AddIncidentUpdate")({
  status: IncidentStatus,
  message: IncidentMessage,
  componentStatuses: Schema.optionalKey(ComponentStatuses),
  restoreComponents: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * Optional body of PATCH /admin/incidents/:id/resolve. `restoreComponents: true` puts the
 * incident's components back to operational, unless a monitor or maintenance says otherwise.
 */
export class ResolveIncident extends Class<ResolveIncident>("ResolveIncident")({
  message: Schema.optionalKey(IncidentMessage),
  restoreComponents: Schema.optionalKey(Schema.Boolean)
}) {}

/** An incident as the public sees it: only public components are named. */
export class PublicIncident extends Class<PublicIncident>("PublicIncident")({
  id: Schema.String,
  title: Schema.String,
  status: IncidentStatus,
  severity: IncidentSeverity,
  message: Schema.String,
  componentIds: Schema.Array(Schema.String),
  createdAt: Schema.DateTimeUtcFromString,
  updatedAt: Schema.DateTimeUtcFromString,
  resolvedAt: Schema.NullOr(Schema.DateTimeUtcFromString)
}) {}

/** GET /status/incidents/:id: the incident with its whole timeline, oldest first, and its published postmortem. */
export class PublicIncidentDetail extends PublicIncident.extend<PublicIncidentDetail>("PublicIncidentDetail")({
  updates: Schema.Array(IncidentUpdate),
  postmortem: Schema.NullOr(PublicPostmortem)
}) {}

/**
 * `offset` of a page: any integer >= 0 (contract). Past every incident the page is empty, so
 * offsets beyond what the database's OFFSET takes are read as its largest, with the same answer.
 */
const PageOffset = NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)).pipe(
  Schema.decodeTo(
    Schema.Int,
    SchemaTransformation.transform<number, number>({
      decode: (offset) => Math.min(offset, 2147483647),
      encode: (offset) => offset
    })
  )
)

/** Query of GET /status/incidents. */
export const PublicIncidentsQuery = Schema.Struct({
  limit: Schema.optionalKey(
    NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 })).annotate({
      description: "Incidents per page, 1 to 100; 20 when left out.",
      default: 20
    })
  ),
  offset: Schema.optionalKey(
    PageOffset.annotate({ description: "How many incidents to skip; 0 when left out.", default: 0 })
  ),
  status: Schema.optionalKey(IncidentStatus)
})
