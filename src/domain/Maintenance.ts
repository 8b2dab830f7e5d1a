import { Schema } from "effect"
import { Model } from "effect/schema"

import { ComponentId } from "./Component.js"
import { BooleanFromString, IdString, Name, Text } from "./Fields.js"
import { ComponentIds } from "./Incident.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { Recurrence, RecurrenceInput } from "./Recurrence.js"
import { Timestamp, UtcTimestamp } from "./Timestamps.js"

export const MaintenanceStatus = Schema.Literals(["scheduled", "in_progress", "completed", "cancelled"])
export type MaintenanceStatus = typeof MaintenanceStatus.Type

export const MaintenanceId = IdString.pipe(Schema.brand("MaintenanceId"))
export type MaintenanceId = typeof MaintenanceId.Type

export const MaintenanceTitle = Name(200)
export const MaintenanceDescription = Text(5000)

export class Maintenance extends Model.Class<Maintenance>("Maintenance")({
  id: Generated(MaintenanceId),
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
  occurrence: Model.FieldExcept(["json", "jsonCreate", "jsonUpdate"])(Schema.NullOr(Schema.Int)),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `Maintenance.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Maintenance.json" })
}

/** Body of POST /admin/maintenance; `scheduledEnd` must be after `scheduledStart`. */
export class CreateMaintenance extends Class<CreateMaintenance>("CreateMaintenance")({
  title: MaintenanceTitle,
  description: Schema.optionalKey(MaintenanceDescription),
  scheduledStart: UtcTimestamp,
  scheduledEnd: UtcTimestamp,
  componentIds: Schema.optionalKey(ComponentIds),
  /** Repeats the window; the occurrences follow the organization's time zone (Recurrence.ts). */
  recurrence: Schema.optionalKey(Schema.NullOr(RecurrenceInput))
}) {}

/** Body of PUT /admin/maintenance/:id: a partial update. */
export class UpdateMaintenance extends Class<UpdateMaintenance>("UpdateMaintenance")({
  title: Schema.optionalKey(MaintenanceTitle),
  description: Schema.optionalKey(MaintenanceDescription),
  scheduledStart: Schema.optionalKey(UtcTimestamp),
  scheduledEnd: Schema.optionalKey(UtcTimestamp),
  componentIds: Schema.optionalKey(ComponentIds),
  /** Makes it public (true) or private (false): an operator's explicit choice, applied after `componentIds`. */
  isPublic: Schema.optionalKey(Schema.Boolean),
  /**
   * A series' rule never changes: its rest is cancelled and a new series created instead. Any
   * value is 400 with this message; the document marks the field read-only and says why.
   */
  recurrence: Schema.optionalKey(
    Schema.Never.annotate({
      message: "cannot change: cancel the rest of the series (?series=true) and schedule a new one",
      description: "Cannot be changed: any value is **400**. To change a series' rule, cancel the rest of the " +
        "series (`DELETE …?series=true`) and schedule a new one.",
      readOnly: true
    })
  )
}) {}

/** Query of DELETE /admin/maintenance/:id. */
export const CancelMaintenanceQuery = Schema.Struct({
  series: Schema.optionalKey(BooleanFromString)
})

/** A window as the public sees it: only public components are named. */
export class PublicMaintenance extends Class<PublicMaintenance>("PublicMaintenance")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  status: MaintenanceStatus,
  scheduledStart: Schema.DateTimeUtcFromString,
  scheduledEnd: Schema.DateTimeUtcFromString,
  componentIds: Schema.Array(Schema.String),
  recurrence: Schema.NullOr(Recurrence),
  seriesId: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromString,
  updatedAt: Schema.DateTimeUtcFromString
}) {}
