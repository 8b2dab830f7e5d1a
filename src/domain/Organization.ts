import { Model } from "@effect/sql"
import { Schema } from "effect"

import { HttpUrl, Id, Name } from "./Fields.js"

export const OrganizationId = Id("OrganizationId")
export type OrganizationId = typeof OrganizationId.Type

export const BrandColor = Schema.String.pipe(
  Schema.pattern(/^#[0-9a-fA-F]{6}$/, { message: () => "must be a colour of the form #rrggbb" })
)

/** A time zone the runtime knows by its IANA name, written as IANA writes it (`Europe/Paris`, `UTC`). */
export const isIanaTimeZone = (name: string): boolean => {
  if (!/^(UTC|[A-Z][A-Za-z_-]+(\/[A-Za-z0-9_+-]+){1,2})$/.test(name)) return false
  try {
    // The runtime takes any spelling (`EUROPE/PARIS`) and answers with its own: one that differs
    // only in case is a misspelling; a different name is an alias (`Asia/Calcutta`), as IANA writes it.
    const known = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone
    return known === name || known.toLowerCase() !== name.toLowerCase()
  } catch {
    return false
  }
}

export const TimeZone = Schema.String.pipe(
  Schema.filter((name) => isIanaTimeZone(name) || "must be an IANA time zone such as Europe/Paris"),
  Schema.annotations({ identifier: "TimeZone", description: "IANA time-zone name" })
)

export const OrganizationName = Name(200)

/** Hours before a maintenance window's start that its readers are reminded of it; 0: no reminders. */
export const MaintenanceReminderHours = Schema.Int.pipe(
  Schema.between(0, 720, { message: () => "must be a whole number of hours from 0 (no reminders) to 720" }),
  Schema.annotations({ identifier: "MaintenanceReminderHours" })
)

export class Organization extends Model.Class<Organization>("Organization")({
  id: Model.Generated(OrganizationId),
  name: OrganizationName,
  logoUrl: Schema.NullOr(Schema.String),
  brandColor: BrandColor,
  timezone: TimeZone,
  maintenanceReminderHours: MaintenanceReminderHours,
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {}

/** Body of PUT /admin/org/:id: a partial update; `logoUrl: null` removes the logo. */
export class UpdateOrganization extends Schema.Class<UpdateOrganization>("UpdateOrganization")({
  name: Schema.optional(OrganizationName),
  logoUrl: Schema.optional(Schema.NullOr(HttpUrl)),
  brandColor: Schema.optional(BrandColor),
  timezone: Schema.optional(TimeZone),
  maintenanceReminderHours: Schema.optional(MaintenanceReminderHours)
}) {}
