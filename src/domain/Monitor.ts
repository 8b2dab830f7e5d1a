import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentId } from "./Component.js"
import type { Issue } from "./Errors.js"
import { Id, Text } from "./Fields.js"
import { regionPattern } from "./Region.js"

export const MonitorType = Schema.Literal("http", "tcp", "ssl_expiry")
export type MonitorType = typeof MonitorType.Type

export const MonitorId = Id("MonitorId")
export type MonitorId = typeof MonitorId.Type

/** A probe region name such as `eu-west` (`regionPattern`). */
export const Region = Schema.String.pipe(
  Schema.pattern(regionPattern, { message: () => "must be a region name such as eu-west: 1-63 of a-z, 0-9, '-', '_'" })
)
export const Regions = Schema.NullOr(Schema.Array(Region).pipe(Schema.minItems(1), Schema.maxItems(20)))

/** Bounds and defaults of monitor fields (docs/monitor-fleet.md, "Monitor settings"). */
export const monitorLimits = {
  intervalSeconds: { min: 10, max: 86400, default: 60 },
  timeoutMs: { min: 100, max: 60000, default: 10000 },
  expectedStatusCode: { min: 100, max: 599, default: 200 },
  failureThreshold: { min: 1, max: 10, default: 3 }
} as const

const bounded = ({ min, max }: { min: number; max: number }) => Schema.Int.pipe(Schema.between(min, max))

export const IntervalSeconds = bounded(monitorLimits.intervalSeconds)
export const TimeoutMs = bounded(monitorLimits.timeoutMs)
export const ExpectedStatusCode = bounded(monitorLimits.expectedStatusCode)
export const FailureThreshold = bounded(monitorLimits.failureThreshold)
const Target = Text(2048)

/** What the probes of one region last found. */
export const RegionState = Schema.Struct({
  region: Schema.String,
  ok: Schema.Boolean,
  consecutiveFailures: Schema.Number,
  lastCheckedAt: Schema.DateTimeUtc,
  lastDurationMs: Schema.Number,
  lastStatusCode: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String)
})

/** `down` when a quorum of regions fails (docs/monitor-fleet.md, "Quorum"); `unknown` until checked. */
export const MonitorState = Schema.Literal("unknown", "up", "down")

export class Monitor extends Model.Class<Monitor>("Monitor")({
  id: Model.Generated(MonitorId),
  componentId: ComponentId,
  type: MonitorType,
  url: Schema.String,
  intervalSeconds: Schema.Int,
  timeoutMs: Schema.Int,
  /** Null for tcp and ssl_expiry monitors. */
  expectedStatusCode: Schema.NullOr(Schema.Int),
  failureThreshold: Schema.Int,
  regions: Schema.NullOr(Schema.Array(Schema.String)),
  state: MonitorState,
  regionStates: Schema.Array(RegionState),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}) {}

/** A plain struct, not a class: the OpenAPI generator lists the query parameters of a struct only. */
export const MonitorResultsQuery = Schema.Struct({
  /** 1–500, default 100. */
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500)))
})

/** One stored check, as GET /admin/monitors/:id/results lists it (newest first). */
export class MonitorResult extends Schema.Class<MonitorResult>("MonitorResult")({
  outcome: Schema.Literal("checked"),
  region: Schema.String,
  probe: Schema.String,
  scheduledAt: Schema.DateTimeUtc,
  checkedAt: Schema.DateTimeUtc,
  ok: Schema.Boolean,
  durationMs: Schema.Number,
  dnsMs: Schema.NullOr(Schema.Number),
  connectMs: Schema.NullOr(Schema.Number),
  tlsMs: Schema.NullOr(Schema.Number),
  firstByteMs: Schema.NullOr(Schema.Number),
  statusCode: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  sslDaysLeft: Schema.NullOr(Schema.Number)
}) {}

/**
 * A run a region did not measure, listed among the results: its probe took the job more than
 * one interval late (`reason: "late"`) and gave it up. No data: it moves neither state nor uptime.
 */
export class MonitorMiss extends Schema.Class<MonitorMiss>("MonitorMiss")({
  outcome: Schema.Literal("missed"),
  region: Schema.String,
  probe: Schema.String,
  scheduledAt: Schema.DateTimeUtc,
  recordedAt: Schema.DateTimeUtc,
  reason: Schema.String
}) {}

/** A scheduled run of a monitor in one region: checked, or missed. */
export const MonitorRun = Schema.Union(MonitorResult, MonitorMiss)
export type MonitorRun = typeof MonitorRun.Type

export class CreateMonitor extends Schema.Class<CreateMonitor>("CreateMonitor")({
  componentId: ComponentId,
  type: MonitorType,
  url: Target,
  intervalSeconds: Schema.optional(IntervalSeconds),
  timeoutMs: Schema.optional(TimeoutMs),
  expectedStatusCode: Schema.optional(ExpectedStatusCode),
  failureThreshold: Schema.optional(FailureThreshold),
  regions: Schema.optional(Regions)
}) {}

export class UpdateMonitor extends Schema.Class<UpdateMonitor>("UpdateMonitor")({
  componentId: Schema.optional(ComponentId),
  type: Schema.optional(MonitorType),
  url: Schema.optional(Target),
  intervalSeconds: Schema.optional(IntervalSeconds),
  timeoutMs: Schema.optional(TimeoutMs),
  expectedStatusCode: Schema.optional(Schema.NullOr(ExpectedStatusCode)),
  failureThreshold: Schema.optional(FailureThreshold),
  regions: Schema.optional(Regions)
}) {}

/** The check a monitor describes, after defaults: what is stored and sent to probes. */
export interface MonitorDefinition {
  readonly componentId: ComponentId
  readonly type: MonitorType
  readonly url: string
  readonly intervalSeconds: number
  readonly timeoutMs: number
  readonly expectedStatusCode: number | null
  readonly failureThreshold: number
  readonly regions: ReadonlyArray<string> | null
}

const port = (value: string) => /^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535

/** The target in its stored form, or the reason it does not suit the type. */
export const normalizeTarget = (type: MonitorType, target: string): { url: string } | { problem: string } => {
  if (type === "tcp") {
    const match = /^(?:tcp:\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d+)$/.exec(target)
    return match && port(match[2]!)
      ? { url: `tcp://${match[1]}:${match[2]}` }
      : { problem: "a tcp monitor needs tcp://host:port or host:port" }
  }
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return { problem: "must be an absolute URL" }
  }
  if (url.hostname === "") return { problem: "must name a host" }
  if (type === "http") {
    return url.protocol === "http:" || url.protocol === "https:"
      ? { url: url.toString() }
      : { problem: "an http monitor needs an http:// or https:// URL" }
  }
  return url.protocol === "https:" && (url.pathname === "/" || url.pathname === "") && url.search === ""
    ? { url: `https://${url.host}` }
    : { problem: "an ssl_expiry monitor needs https://host or https://host:port" }
}

/** The rules across fields: the target suits the type, the time-out fits in the interval, and the status code is for http. */
export const definitionIssues = (definition: MonitorDefinition): Array<Issue> => {
  const issues: Array<Issue> = []
  const target = normalizeTarget(definition.type, definition.url)
  if ("problem" in target) issues.push({ path: ["url"], message: target.problem })
  if (definition.timeoutMs >= definition.intervalSeconds * 1000) {
    issues.push({ path: ["timeoutMs"], message: "must be shorter than the interval" })
  }
  if (definition.type !== "http" && definition.expectedStatusCode !== null) {
    issues.push({ path: ["expectedStatusCode"], message: "applies to http monitors only" })
  }
  if (definition.type === "http" && definition.expectedStatusCode === null) {
    issues.push({ path: ["expectedStatusCode"], message: "an http monitor checks for one: 100-599" })
  }
  if (definition.regions !== null && new Set(definition.regions).size !== definition.regions.length) {
    issues.push({ path: ["regions"], message: "must not repeat a region" })
  }
  return issues
}
