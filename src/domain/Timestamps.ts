/**
 * Timestamps of resources: `Date` from the database, ISO 8601 UTC strings (ending in `Z`) in JSON.
 */
import { Schema } from "effect"
import { Model } from "effect/schema"

import { pattern } from "./Fields.js"

/** A timestamp column written by the application (maintenance schedules, API key creation). */
export const Timestamp = Model.Field({
  select: Schema.DateTimeUtcFromDate,
  insert: Schema.DateTimeUtcFromDate,
  update: Schema.DateTimeUtcFromDate,
  json: Schema.DateTimeUtcFromString
})

/** A nullable timestamp column set by the service (`resolvedAt`, `lastUsedAt`, `expiresAt`). */
export const NullableTimestamp = Model.Field({
  select: Schema.NullOr(Schema.DateTimeUtcFromDate),
  insert: Schema.NullOr(Schema.DateTimeUtcFromDate),
  update: Schema.NullOr(Schema.DateTimeUtcFromDate),
  json: Schema.NullOr(Schema.DateTimeUtcFromString)
})

/** How a request body's timestamp is named and described in the OpenAPI document. */
const utcTimestampDoc = { identifier: "UtcTimestamp", description: "ISO 8601 UTC timestamp ending in Z" }

/**
 * A timestamp in a request body: ISO 8601 in UTC, such as `2030-01-31T09:00:00Z`. Offsets and
 * dates without a time are refused, so the stored instant is never a guess; so are impossible dates.
 */
export const UtcTimestamp = Schema.String.check(
  pattern(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/,
    "must be an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z"
  ),
  // Date.parse rolls 2030-02-30 over to March: refuse dates that do not round-trip.
  // It has no JSON Schema of its own; the annotations it carries still reach the OpenAPI document.
  Schema.makeFilter((value: string) => {
    const time = Date.parse(value)
    return (!Number.isNaN(time) && new Date(time).toISOString().slice(0, 16) === value.slice(0, 16)) ||
      "must be a real date and time"
  }, { toJsonSchema: () => [{}, true] })
).annotate(utcTimestampDoc).pipe(
  Schema.decodeTo(Schema.DateTimeUtcFromString),
  Schema.annotate(utcTimestampDoc)
)
