import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentStatus } from "./Component.js"
import { Id, Int32, Name, Text } from "./Fields.js"

export const ComponentGroupId = Id("ComponentGroupId")
export type ComponentGroupId = typeof ComponentGroupId.Type

export const ComponentGroupName = Name(200)
export const ComponentGroupDescription = Text(2000)

/**
 * A heading the public page shows components under, with the worst of their statuses. A private
 * group is not shown: its public components appear ungrouped.
 */
export class ComponentGroup extends Model.Class<ComponentGroup>("ComponentGroup")({
  id: Model.Generated(ComponentGroupId),
  name: ComponentGroupName,
  description: ComponentGroupDescription,
  displayOrder: Int32,
  isPublic: Schema.Boolean,
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {}

/**
 * Body of POST /admin/component-groups: only the name is required. Defaults as for a component:
 * empty description, public, and placed after the last group.
 */
export class CreateComponentGroup extends Schema.Class<CreateComponentGroup>("CreateComponentGroup")({
  name: ComponentGroupName,
  description: Schema.optional(ComponentGroupDescription),
  displayOrder: Schema.optional(Int32),
  isPublic: Schema.optional(Schema.Boolean)
}) {}

/** Body of PUT /admin/component-groups/:id: a partial update. */
export class UpdateComponentGroup extends Schema.Class<UpdateComponentGroup>("UpdateComponentGroup")({
  name: Schema.optional(ComponentGroupName),
  description: Schema.optional(ComponentGroupDescription),
  displayOrder: Schema.optional(Int32),
  isPublic: Schema.optional(Schema.Boolean)
}) {}

/**
 * A group as the public summary shows it: `status` is the worst of its public components',
 * `componentIds` those components in their display order.
 */
export class PublicComponentGroup extends Schema.Class<PublicComponentGroup>("PublicComponentGroup")({
  id: Schema.String,
  name: Schema.String,
  status: ComponentStatus,
  componentIds: Schema.Array(Schema.String)
}) {}
