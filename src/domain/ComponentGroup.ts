import { Schema } from "effect"
import { Model } from "effect/schema"

import { ComponentStatus } from "./Component.js"
import { Id, Int32, Name, Text } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"

export const ComponentGroupId = Id("ComponentGroupId")
export type ComponentGroupId = typeof ComponentGroupId.Type

export const ComponentGroupName = Name(200)
export const ComponentGroupDescription = Text(2000)

/**
 * A heading the public page shows components under, with the worst of their statuses. A private
 * group is not shown: its public components appear ungrouped.
 */
export class ComponentGroup extends Model.Class<ComponentGroup>("ComponentGroup")({
  id: Generated(ComponentGroupId),
  name: ComponentGroupName,
  description: ComponentGroupDescription,
  displayOrder: Int32,
  isPublic: Schema.Boolean,
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `ComponentGroup.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "ComponentGroup.json" })
}

/**
 * Body of POST /admin/component-groups: only the name is required. Defaults as for a component:
 * empty description, public, and placed after the last group.
 */
export class CreateComponentGroup extends Class<CreateComponentGroup>("CreateComponentGroup")({
  name: ComponentGroupName,
  description: Schema.optionalKey(ComponentGroupDescription),
  displayOrder: Schema.optionalKey(Int32),
  isPublic: Schema.optionalKey(Schema.Boolean)
}) {}

/** Body of PUT /admin/component-groups/:id: a partial update. */
export class UpdateComponentGroup extends Class<UpdateComponentGroup>("UpdateComponentGroup")({
  name: Schema.optionalKey(ComponentGroupName),
  description: Schema.optionalKey(ComponentGroupDescription),
  displayOrder: Schema.optionalKey(Int32),
  isPublic: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * A group as the public summary shows it: `status` is the worst of its public components',
 * `componentIds` those components in their display order.
 */
export class PublicComponentGroup extends Class<PublicComponentGroup>("PublicComponentGroup")({
  id: Schema.String,
  name: Schema.String,
  status: ComponentStatus,
  componentIds: Schema.Array(Schema.String)
}) {}
