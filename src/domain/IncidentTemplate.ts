import { Schema } from "effect"
import { Model } from "effect/schema"

import { ComponentId } from "./Component.js"
import { Name } from "./Fields.js"
import {
  ComponentIds,
  IncidentMessage,
  IncidentSeverity,
  IncidentTemplateId,
  IncidentTitle,
  OpenIncidentStatus
} from "./Incident.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"

/** Unique among templates, compared without regard to case. */
export const IncidentTemplateName = Name(200)

/**
 * What opening an incident from the template fills in: its title, first message, severity,
 * status (one of the open ones) and components. Components deleted later drop out of it.
 */
export class IncidentTemplate extends Model.Class<IncidentTemplate>("IncidentTemplate")({
  id: Generated(IncidentTemplateId),
  name: Schema.String,
  title: Schema.String,
  message: Schema.String,
  severity: IncidentSeverity,
  status: OpenIncidentStatus,
  componentIds: Schema.Array(ComponentId),
  /** The visibility an incident opened from it takes, as for an incident naming its components. */
  isPublic: Schema.Boolean,
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `IncidentTemplate.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "IncidentTemplate.json" })
}

/** Body of POST /admin/incident-templates. Defaults as for an incident: `investigating`, `minor`, no components. */
export class CreateIncidentTemplate extends Class<CreateIncidentTemplate>("CreateIncidentTemplate")({
  name: IncidentTemplateName,
  title: IncidentTitle,
  message: IncidentMessage,
  severity: Schema.optionalKey(IncidentSeverity),
  status: Schema.optionalKey(OpenIncidentStatus),
  componentIds: Schema.optionalKey(ComponentIds)
}) {}

/** Body of PUT /admin/incident-templates/:id: a partial update. */
export class UpdateIncidentTemplate extends Class<UpdateIncidentTemplate>("UpdateIncidentTemplate")({
  name: Schema.optionalKey(IncidentTemplateName),
  title: Schema.optionalKey(IncidentTitle),
  message: Schema.optionalKey(IncidentMessage),
  severity: Schema.optionalKey(IncidentSeverity),
  status: Schema.optionalKey(OpenIncidentStatus),
  componentIds: Schema.optionalKey(ComponentIds),
  /** Makes it public (true) or private (false): an operator's explicit choice, applied after `componentIds`. */
  isPublic: Schema.optionalKey(Schema.Boolean)
}) {}
