import { Schema } from "effect"
import { Model } from "effect/schema"

import { Id, IdString, Int32, Name, Text } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"

export const ComponentStatus = Schema.Literals([
  "operational",
  "degraded",
  "partial_outage",
  "major_outage",
  "maintenance"
])
export type ComponentStatus = typeof ComponentStatus.Type

/** Who is in charge of a component's status (`components.status_set_by`, migration 0010). */
export type StatusSetBy = "operator" | "monitors"

/** Severity order of component statuses, worst first: the overall status is the worst one (docs/api.md). */
const severity: Record<ComponentStatus, number> = {
  major_outage: 4,
  partial_outage: 3,
  degraded: 2,
  maintenance: 1,
  operational: 0
}

/** The worst of the given statuses; `operational` when there are none. */
export const worstStatus = (statuses: Iterable<ComponentStatus>): ComponentStatus => {
  let worst: ComponentStatus = "operational"
  for (const status of statuses) if (severity[status] > severity[worst]) worst = status
  return worst
}

export const ComponentId = Id("ComponentId")
export type ComponentId = typeof ComponentId.Type

export const ComponentName = Name(200)
export const ComponentDescription = Text(2000)
export const DisplayOrder = Int32

export class Component extends Model.Class<Component>("Component")({
  id: Generated(ComponentId),
  name: ComponentName,
  description: ComponentDescription,
  status: ComponentStatus,
  displayOrder: DisplayOrder,
  isPublic: Schema.Boolean,
  /** The group it is shown under; null when ungrouped. */
  groupId: Schema.NullOr(Schema.String),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `Component.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Component.json" })
}

/**
 * Body of POST /admin/components: only the name is required. Defaults: empty description,
 * `operational`, public, ungrouped, and placed after the last component.
 */
export class CreateComponent extends Class<CreateComponent>("CreateComponent")({
  name: ComponentName,
  description: Schema.optionalKey(ComponentDescription),
  status: Schema.optionalKey(ComponentStatus),
  displayOrder: Schema.optionalKey(DisplayOrder),
  isPublic: Schema.optionalKey(Schema.Boolean),
  /** A component group's id, or null for none; an unknown group is 404. */
  groupId: Schema.optionalKey(Schema.NullOr(IdString))
}) {}

/** Body of PUT /admin/components/:id: a partial update. */
export class UpdateComponent extends Class<UpdateComponent>("UpdateComponent")({
  name: Schema.optionalKey(ComponentName),
  description: Schema.optionalKey(ComponentDescription),
  status: Schema.optionalKey(ComponentStatus),
  displayOrder: Schema.optionalKey(DisplayOrder),
  isPublic: Schema.optionalKey(Schema.Boolean),
  /** A component group's id, or null for none; an unknown group is 404. */
  groupId: Schema.optionalKey(Schema.NullOr(IdString))
}) {}

export class SetComponentStatus extends Class<SetComponentStatus>("SetComponentStatus")({
  status: ComponentStatus
}) {}

/** A component as the public sees it. */
export class PublicComponent extends Class<PublicComponent>("PublicComponent")({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  status: ComponentStatus,
  displayOrder: Schema.Finite,
  /** Its group when that group is public; null otherwise (ungrouped on the public side). */
  groupId: Schema.NullOr(Schema.String)
}) {}
