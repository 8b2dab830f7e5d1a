import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentId } from "./Component.js"
import { IdString, Name, Text } from "./Fields.js"
import { ComponentIds } from "./Incident.js"
import { Recurrence, RecurrenceInput } from "./Recurrence.js"
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
  /** Whether the public sees it, as an operator made it (docs/api.md, "Public visibility"). */
  isPublic: Schema.Boolean,
  /** The series' rule, on each of its occurrences; null for a one-off window. */
  recurrence: Schema.NullOr(Recurrence),
  /** The id of the series' first occurrence; null for a one-off window. */
  seriesId: Schema.NullOr(MaintenanceId),
  /** The occurrence's place in its series (0 for the first): the service's, not the API's. */
  occurrence: Model.FieldExcept("json", "jsonCreate", "jsonUpdate")(Schema.NullOr(Schema.Int)),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {}

/** Body of POST /admin/maintenance; `scheduledEnd` must be after `scheduledStart`. */
export class CreateMaintenance extends Schema.Class<CreateMaintenance>("CreateMaintenance")({
  title: MaintenanceTitle,
  description: Schema.optional(MaintenanceDescription),
  scheduledStart: UtcTimestamp,
  scheduledEnd: UtcTimestamp,
  componentIds: Schema.optional(ComponentIds),
  /** Repeats the window; the occurrences follow the organization's time zone (Recurrence.ts). */
  recurrence: Schema.optional(Schema.NullOr(RecurrenceInput))
}) {}

/** Body of PUT /admin/maintenance/:id: a partial update. */
export class UpdateMaintenance extends Schema.Class<UpdateMaintenance>("UpdateMaintenance")({
  title: Schema.optional(MaintenanceTitle),
  description: Schema.optional(MaintenanceDescription),
  scheduledStart: Schema.optional(UtcTimestamp),
  scheduledEnd: Schema.optional(UtcTimestamp),
  componentIds: Schema.optional(ComponentIds),
  /** Makes it public (true) or private (false): an operator's explicit choice, applied after `componentIds`. */
  isPublic: Schema.optional(Schema.Boolean),
  /** A series' rule never changes: its rest is cancelled and a new series created instead. */
  recurrence: Schema.optionalWith(
    Schema.Never.annotations({
      message: () => "cannot change: cancel the rest of the series (?series=true) and schedule a new one"
    }),
    { exact: true }
  )
}) {}

/** Query of DELETE /admin/maintenance/:id. */
export const CancelMaintenanceQuery = Schema.Struct({
  series: Schema.optional(Schema.BooleanFromString)
})

/** A window as the public sees it: only public components are named. */
export class PublicMaintenance extends Schema.Class<PublicMaintenance>("PublicMaintenance")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  status: MaintenanceStatus,
  scheduledStart: Schema.DateTimeUtc,
  scheduledEnd: Schema.DateTimeUtc,
  componentIds: Schema.Array(Schema.String),
  recurrence: Schema.NullOr(Recurrence),
  seriesId: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}
