/**
 * A CheckResult decoded by hand from a parsed report, for the one shape probes send (no `_tag`):
 * what ingest does for nearly every entry it reads, at under a third of the schema's cost.
 * It checks every bound of CheckResult's schema; what it does not accept (a miss, a heartbeat, a
 * result that breaks a bound) is left to the schema, which decides. So it accepts only what the
 * schema accepts, and builds the same value: the fields in the schema's order, unknown fields
 * dropped, a `traceparent` that is not a valid one kept as undefined.
 * test/domain/decodeCheckResultFast.unit.test.ts holds the two equal on arbitrary input.
 */
import {
  type CheckResult,
  errorMaxLength,
  isTraceparent,
  maxReportedMillis,
  maxReportedMs,
  maxSslDays,
  reportedMaxLength,
  withinWindow
} from "./CheckJob.js"
import { storable } from "./Fields.js"

const hasOwn = Object.prototype.hasOwnProperty

/** What `storable` may refuse: a string without either is storable, which spares its regex the common case. */
const suspect = /[\u0000\uD800-\uDFFF]/

const isText = (value: unknown, min: number, max: number): value is string =>
  typeof value === "string" && value.length >= min && value.length <= max &&
  (!suspect.test(value) || storable(value) === true)

const isIntIn = (value: unknown, min: number, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max

/** NaN and the infinities fail the comparisons. */
const isTiming = (value: unknown): value is number | null =>
  value === null || (typeof value === "number" && value >= 0 && value <= maxReportedMs)

/** The CheckResult `input` (parsed JSON) decodes to, or undefined: not one, or not in the shape this knows. */
export const decodeCheckResultFast = (input: unknown): CheckResult | undefined => {
  // A `_tag` makes the union try a miss or a heartbeat first.
  if (typeof input !== "object" || input === null || Array.isArray(input) || hasOwn.call(input, "_tag")) {
    return undefined
  }
  // Each field read once, as the schema does.
  const {
    checkedAt,
    durationMs,
    error,
    jobId,
    monitorId,
    ok,
    probe,
    region,
    scheduledAt,
    sslDaysLeft,
    statusCode,
    timings
  } = input as Record<string, unknown>
  if (
    !isText(jobId, 0, reportedMaxLength.jobId) ||
    !isText(monitorId, 1, reportedMaxLength.monitorId) ||
    !isText(region, 1, reportedMaxLength.region) ||
    !isText(probe, 0, reportedMaxLength.probe) ||
    !isIntIn(scheduledAt, 0, maxReportedMillis) ||
    !isIntIn(checkedAt, 0, maxReportedMillis) ||
    typeof ok !== "boolean" ||
    typeof durationMs !== "number" || !(durationMs >= 0 && durationMs <= maxReportedMs) ||
    typeof timings !== "object" || timings === null || Array.isArray(timings) ||
    !(statusCode === null || isIntIn(statusCode, 100, 599)) ||
    !(error === null || isText(error, 0, errorMaxLength)) ||
    !(sslDaysLeft === null || isIntIn(sslDaysLeft, -maxSslDays, maxSslDays)) ||
    !withinWindow(scheduledAt, checkedAt)
  ) {
    return undefined
  }
  const { connectMs, dnsMs, firstByteMs, tlsMs } = timings as Record<string, unknown>
  if (!isTiming(dnsMs) || !isTiming(connectMs) || !isTiming(tlsMs) || !isTiming(firstByteMs)) {
    return undefined
  }
  const fields: CheckResult = {
    jobId,
    monitorId,
    region,
    probe,
    scheduledAt,
    checkedAt,
    ok,
    durationMs,
    timings: { dnsMs, connectMs, tlsMs, firstByteMs },
    statusCode,
    error,
    sslDaysLeft
  }
  if (!hasOwn.call(input, "traceparent")) {
    return fields
  }
  // Present, the schema keeps the key: the value when it is a valid traceparent, else undefined.
  const traceparent = (input as { readonly traceparent: unknown }).traceparent
  return {
    ...fields,
    traceparent: typeof traceparent === "string" && isTraceparent(traceparent) ? traceparent : undefined
  }
}
