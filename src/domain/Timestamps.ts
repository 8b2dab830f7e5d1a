/**
 * Timestamps of resources: `Date` from the database, ISO 8601 UTC strings (ending in `Z`) in JSON.
 */
import { Model } from "@effect/sql"
import { Schema } from "effect"

/** A timestamp column written by the application (maintenance schedules, API key creation). */
export const Timestamp = Model.Field({
  select: Model.DateTimeFromDate,
  insert: Model.DateTimeFromDate,
  update: Model.DateTimeFromDate,
  json: Schema.DateTimeUtc
})

/** A nullable timestamp column set by the service (`resolvedAt`, `lastUsedAt`, `expiresAt`). */
export const NullableTimestamp = Model.Field({
  select: Schema.NullOr(Model.DateTimeFromDate),
  insert: Schema.NullOr(Model.DateTimeFromDate),
  update: Schema.NullOr(Model.DateTimeFromDate),
  json: Schema.NullOr(Schema.DateTimeUtc)
})

/**
 * A timestamp in a request body: ISO 8601 in UTC, such as `2030-01-31T09:00:00Z`. Offsets and
 * dates without a time are refused, so the stored instant is never a guess; so are impossible dates.
 */
export const UtcTimestamp = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/, {
    message: () => "must be an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z"
  }),
  // Date.parse rolls 2030-02-30 over to March: refuse dates that do not round-trip.
  Schema.filter((value) => {
    const time = Date.parse(value)
    return (!Number.isNaN(time) && new Date(time).toISOString().slice(0, 16) === value.slice(0, 16)) ||
      "must be a real date and time"
  }),
  Schema.compose(Schema.DateTimeUtc),
  Schema.annotations({ identifier: "UtcTimestamp", description: "ISO 8601 UTC timestamp ending in Z" })
)
