import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentId } from "./Component.js"
import { IdString, Name, Text } from "./Fields.js"
import { ComponentIds } from "./Incident.js"
import { Timestamp, UtcTimestamp } from "./Timestamps.js"

export const MaintenanceStatus = Schema.Literal("scheduled", "in_progress", "completed", "cancelled")
export type MaintenanceStatus = typeof MaintenanceStatus.Type

export const MaintenanceId = IdString.pipe(Schema.brand("MaintenanceId"))
export type MaintenanceId = typeof MaintenanceId.Type

export const MaintenanceTitle = Name(200)
export const MaintenanceDescription = Text(5000)

export class Maintenance extends Model.Class<Maintenance>("Maintenance")({
  id: Model.Generated(MaintenanceId),
  title: MaintenanceTitle,
  description: MaintenanceDescription,
  status: MaintenanceStatus,
  scheduledStart: Timestamp,
  scheduledEnd: Timestamp,
  componentIds: Schema.Array(ComponentId),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {}

/** Body of POST /admin/maintenance; `scheduledEnd` must be after `scheduledStart`. */
export class CreateMaintenance extends Schema.Class<CreateMaintenance>("CreateMaintenance")({
  title: MaintenanceTitle,
  description: Schema.optional(MaintenanceDescription),
  scheduledStart: UtcTimestamp,
  scheduledEnd: UtcTimestamp,
  componentIds: Schema.optional(ComponentIds)
}) {}

/** Body of PUT /admin/maintenance/:id: a partial update. */
export class UpdateMaintenance extends Schema.Class<UpdateMaintenance>("UpdateMaintenance")({
  title: Schema.optional(MaintenanceTitle),
  description: Schema.optional(MaintenanceDescription),
  scheduledStart: Schema.optional(UtcTimestamp),
  scheduledEnd: Schema.optional(UtcTimestamp),
  componentIds: Schema.optional(ComponentIds)
}) {}

/** A window as the public sees it: only public components are named. */
export class PublicMaintenance extends Schema.Class<PublicMaintenance>("PublicMaintenance")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  status: MaintenanceStatus,
  scheduledStart: Schema.DateTimeUtc,
  scheduledEnd: Schema.DateTimeUtc,
  componentIds: Schema.Array(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}
