import { Schema } from "effect"
import { Model } from "effect/schema"

import { HttpUrl, Id, Name, pattern } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"

export const OrganizationId = Id("OrganizationId")
export type OrganizationId = typeof OrganizationId.Type

export const BrandColor = Schema.String.check(pattern(/^#[0-9a-fA-F]{6}$/, "must be a colour of the form #rrggbb"))

/** The shape of an IANA time-zone name: `UTC`, or an area and one or two locations (`America/Argentina/Salta`). */
const ianaShape = /^(UTC|[A-Z][A-Za-z_-]+(\/[A-Za-z0-9_+-]+){1,2})$/

/**
 * Zones already found valid: every decode of the organization checks its zone, and a formatter
 * costs about 0.1 ms. The runtime knows a few hundred zones and aliases, so the set stays that
 * small; a name found invalid is not kept, so input cannot grow it.
 */
const validZones = new Set<string>()

/** A time zone the runtime knows by its IANA name, written as IANA writes it (`Europe/Paris`, `UTC`). */
export const isIanaTimeZone = (name: string): boolean => {
  if (validZones.has(name)) return true
  if (!ianaShape.test(name)) return false
  try {
    // The runtime takes any spelling (`EUROPE/PARIS`) and answers with its own: one that differs
    // only in case is a misspelling; a different name is an alias (`Asia/Calcutta`), as IANA writes it.
    const known = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone
    const valid = known === name || known.toLowerCase() !== name.toLowerCase()
    if (valid) validZones.add(name)
    return valid
  } catch {
    return false
  }
}

// The document shows the shape as a `pattern`, looser than the check: the zone must also be one the runtime knows.
export const TimeZone = Schema.String.check(
  Schema.makeFilter(
    (name: string) => isIanaTimeZone(name) || "must be an IANA time zone such as Europe/Paris",
    { toJsonSchema: () => [{ pattern: ianaShape.source }, true] }
  )
).annotate({
  identifier: "TimeZone",
  description: "An IANA time-zone name as IANA writes it (`Europe/Paris`, `America/New_York`, `UTC`; not " +
    "`europe/paris`, not an offset), known to the server. The public page shows times in it, and recurring " +
    "maintenance windows follow it.",
  examples: ["Europe/Paris"]
})

export const OrganizationName = Name(200)

/** Hours before a maintenance window's start that its readers are reminded of it; 0: no reminders. */
export const MaintenanceReminderHours = Schema.Int.check(
  Schema.isBetween({ minimum: 0, maximum: 720 }, {
    message: "must be a whole number of hours from 0 (no reminders) to 720"
  })
).annotate({ identifier: "MaintenanceReminderHours" })

export class Organization extends Model.Class<Organization>("Organization")({
  id: Generated(OrganizationId),
  name: OrganizationName,
  logoUrl: Schema.NullOr(Schema.String),
  brandColor: BrandColor,
  timezone: TimeZone,
  maintenanceReminderHours: MaintenanceReminderHours,
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {
  /** The JSON variant, named `Organization.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Organization.json" })
}

/** Body of PUT /admin/org/:id: a partial update; `logoUrl: null` removes the logo. */
export class UpdateOrganization extends Class<UpdateOrganization>("UpdateOrganization")({
  name: Schema.optionalKey(OrganizationName),
  logoUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  brandColor: Schema.optionalKey(BrandColor),
  timezone: Schema.optionalKey(TimeZone),
  maintenanceReminderHours: Schema.optionalKey(MaintenanceReminderHours)
}) {}
