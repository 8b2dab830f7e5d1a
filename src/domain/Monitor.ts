import { Schema } from "effect"
import { Model } from "effect/schema"

import { DnsRecordType, HttpMethod, MissReason, StatusCodeSpec } from "./CheckJob.js"
import { ComponentId } from "./Component.js"
import type { Issue } from "./Errors.js"
import { Id, pattern, Text } from "./Fields.js"
import { IncidentTemplateId } from "./Incident.js"
import { type JsonAssertion, JsonAssertions } from "./JsonAssertion.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { pushTarget, PushToken } from "./PushToken.js"
import { isProbeRegion, regionPattern } from "./Region.js"

export const MonitorType = Schema.Literals([
  "http",
  "tcp",
  "ssl_expiry",
  "dns",
  /** Not run by probes: the job it watches calls its URL (docs/monitor-fleet.md, "Push monitors"). */
  "push",
  "icmp",
  "grpc",
  "postgres",
  "mysql",
  "redis",
  "mqtt",
  "amqp"
])
export type MonitorType = typeof MonitorType.Type

export const MonitorId = Id("MonitorId")
export type MonitorId = typeof MonitorId.Type

/** A probe region name such as `eu-west` (`regionPattern`). */
export const Region = Schema.String.check(
  pattern(regionPattern, "must be a region name such as eu-west: 1-63 of a-z, 0-9, '-', '_'"),
  Schema.makeFilter((name: string) => isProbeRegion(name) || "push is the region of push monitors, not a probe's")
)
export const Regions = Schema.NullOr(Schema.Array(Region).check(Schema.isMinLength(1), Schema.isMaxLength(20)))

/** Bounds and defaults of monitor fields (docs/monitor-fleet.md, "Monitor settings"). */
export const monitorLimits = {
  intervalSeconds: { min: 10, max: 86400, default: 60 },
  timeoutMs: { min: 100, max: 60000, default: 10000 },
  expectedStatusCode: { min: 100, max: 599, default: 200 },
  failureThreshold: { min: 1, max: 10, default: 3 },
  /** An integer quorum: at least k failing regions. */
  quorum: { min: 1, max: 1000 },
  degradedAboveMs: { min: 1, max: 60000 },
  resolveAfterSeconds: { min: 0, max: 86400, default: 300 },
  headers: { max: 20, nameLength: 256, valueLength: 1024 },
  body: { maxLength: 65536 },
  expectedStatusCodes: { max: 20 },
  bodyText: { maxLength: 1024 },
  dnsExpectedValues: { max: 20, valueLength: 1024 },
  password: { maxLength: 1024 },
  grpcService: { maxLength: 256 },
  pingCount: { min: 1, max: 10, default: 3 },
  /** push only: how long after its interval a push may still come. */
  graceSeconds: { min: 0, max: 86400, default: 30 }
} as const

/** What answers show in place of a header value, and what an update sends to keep the stored one. */
export const maskedHeaderValue = "********"

/** Headers a check may not set: the HTTP client writes them itself. Lower case. */
export const refusedHeaders: ReadonlyArray<string> = ["host", "content-length", "transfer-encoding", "connection"]

const bounded = ({ min, max }: { min: number; max: number }) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }))

export const IntervalSeconds = bounded(monitorLimits.intervalSeconds)
export const TimeoutMs = bounded(monitorLimits.timeoutMs)
export const ExpectedStatusCode = bounded(monitorLimits.expectedStatusCode)
export const FailureThreshold = bounded(monitorLimits.failureThreshold)
export const ResolveAfterSeconds = bounded(monitorLimits.resolveAfterSeconds)
export const GraceSeconds = bounded(monitorLimits.graceSeconds)

/**
 * What the monitor does when its quorum finds it down (docs/status-model.md, "Automatic
 * incidents"): nothing (`off`), open a draft incident, or open a published one.
 */
export const IncidentPolicy = Schema.Literals(["off", "draft", "publish"])
export type IncidentPolicy = typeof IncidentPolicy.Type
const Target = Text(2048)

export const QuorumRule = Schema.Union([
  Schema.Literals(["majority", "any", "all"]),
  Schema.Int.check(Schema.isBetween({ minimum: monitorLimits.quorum.min, maximum: monitorLimits.quorum.max }))
]).annotate({
  description: "How many failing regions make the monitor down: \"majority\" (more than half), \"any\" (one), " +
    "\"all\", or at least k (1-1000, at most the number of its regions)"
})
export type QuorumRule = typeof QuorumRule.Type

export const DegradedAboveMs = Schema.NullOr(bounded(monitorLimits.degradedAboveMs))

const headerValue = Text(monitorLimits.headers.valueLength).check(
  Schema.makeFilter((value) => !/[\r\n]/.test(value) || "must not contain CR or LF")
)
/** Header name -> value; names and count are checked with the other rules (definitionIssues). */
export const Headers = Schema.Record(Schema.String, headerValue)
export type Headers = typeof Headers.Type

export const RequestBody = Text(monitorLimits.body.maxLength)

/** Codes (`"204"`) and ranges (`"200-299"`) within 100-599, as the job carries them. */
export const ExpectedStatusCodes = Schema.Array(StatusCodeSpec).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(monitorLimits.expectedStatusCodes.max)
)

export const BodyText = Text(monitorLimits.bodyText.maxLength).check(
  Schema.isMinLength(1, { message: "must not be empty" })
)

/** The password of a database or broker monitor: write-only, answered as `"********"` like a header value. */
export const Password = Text(monitorLimits.password.maxLength)
export const GrpcService = Text(monitorLimits.grpcService.maxLength)
export const PingCount = bounded(monitorLimits.pingCount)

export const DnsExpectedValues = Schema.Array(
  Text(monitorLimits.dnsExpectedValues.valueLength).check(Schema.isMinLength(1, { message: "must not be empty" }))
).check(Schema.isMinLength(1), Schema.isMaxLength(monitorLimits.dnsExpectedValues.max))

/** The one code a list expects when it is a single code, else null: what `expectedStatusCode` answers. */
export const singleStatusCode = (codes: ReadonlyArray<string> | null): number | null =>
  codes !== null && codes.length === 1 && /^\d{3}$/.test(codes[0]!) ? Number(codes[0]) : null

/** What the probes of one region last found. */
export const RegionState = Schema.Struct({
  region: Schema.String,
  ok: Schema.Boolean,
  consecutiveFailures: Schema.Finite,
  /** When the run it last measured was due: a region counts for quorum within two intervals of it. */
  lastScheduledAt: Schema.DateTimeUtcFromString,
  lastCheckedAt: Schema.DateTimeUtcFromString,
  lastDurationMs: Schema.Finite,
  lastStatusCode: Schema.NullOr(Schema.Finite),
  lastError: Schema.NullOr(Schema.String)
})

/**
 * `down` when a quorum of regions fails, `degraded` when a quorum of them succeeds slower than
 * `degradedAboveMs` (docs/monitor-fleet.md, "Quorum"); `unknown` until checked.
 */
export const MonitorState = Schema.Literals(["unknown", "up", "degraded", "down"])

/** A monitor as stored, with what each region last found. */
const storedFields = {
  id: Generated(MonitorId),
  componentId: ComponentId,
  type: MonitorType,
  url: Schema.String,
  intervalSeconds: Schema.Int,
  timeoutMs: Schema.Int,
  /** The code `expectedStatusCodes` holds when it is one single code; else null (and for other types). */
  expectedStatusCode: Schema.NullOr(Schema.Int),
  failureThreshold: Schema.Int,
  regions: Schema.NullOr(Schema.Array(Schema.String)),
  quorum: QuorumRule,
  degradedAboveMs: Schema.NullOr(Schema.Int),
  /** http only (null for the other types), as the next ones. */
  method: Schema.NullOr(HttpMethod),
  /** Values are `"********"` in every answer of the API. */
  headers: Schema.NullOr(Schema.Record(Schema.String, Schema.String)),
  body: Schema.NullOr(Schema.String),
  expectedStatusCodes: Schema.NullOr(Schema.Array(Schema.String)),
  bodyContains: Schema.NullOr(Schema.String),
  bodyNotContains: Schema.NullOr(Schema.String),
  /** Assertions on the body as JSON (src/domain/JsonAssertion.ts). */
  assertions: Schema.NullOr(JsonAssertions),
  /** dns only (null for the other types), as the next one. */
  dnsRecordType: Schema.NullOr(DnsRecordType),
  dnsExpectedValues: Schema.NullOr(Schema.Array(Schema.String)),
  /** postgres, mysql, redis, mqtt and amqp only; `"********"` in every answer of the API when set. */
  password: Schema.NullOr(Schema.String),
  /** grpc only: the service whose health is asked (null: the server's). */
  grpcService: Schema.NullOr(Schema.String),
  /** icmp only: echo requests sent per check. */
  pingCount: Schema.NullOr(Schema.Int),
  /** push only (null for the other types): how long after its interval a push may still count for it. */
  graceSeconds: Schema.NullOr(Schema.Int),
  state: MonitorState,
  /** A paused monitor is not checked; its state is `unknown` until it is resumed and checked again. */
  paused: Schema.Boolean,
  incidentPolicy: IncidentPolicy,
  incidentTemplateId: Schema.NullOr(Schema.String),
  resolveAfterSeconds: Schema.Int,
  regionStates: Schema.Array(RegionState),
  createdAt: Model.DateTimeInsertFromDate,
  updatedAt: Model.DateTimeUpdateFromDate
}

/** A monitor row as the database returns it; `reportingRegions` depends on the time and the probes online. */
export class StoredMonitor extends Model.Class<StoredMonitor>("StoredMonitor")(storedFields) {}

export class Monitor extends Model.Class<Monitor>("Monitor")({
  ...storedFields,
  /** The regions whose data counts now: among its regions, checked within two intervals, not offline. */
  reportingRegions: Schema.Array(Schema.String),
  /**
   * push only, and only in the answer that made it (creation, rotation, a change of type to
   * push): the token of its URL, which is stored hashed and never shown again.
   */
  pushToken: Schema.optionalKey(Schema.String)
}) {
  /** The JSON variant, named `Monitor.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Monitor.json" })
}

/** A plain struct, not a class: the OpenAPI generator lists the query parameters of a struct only. */
/** How many runs a page of GET /admin/monitors/:id/results holds. */
export const runsPageBounds = { fallback: 100, max: 500 } as const

/** One stored check, as GET /admin/monitors/:id/results lists it (newest first). */
export class MonitorResult extends Class<MonitorResult>("MonitorResult")({
  outcome: Schema.Literal("checked"),
  region: Schema.String,
  probe: Schema.String,
  scheduledAt: Schema.DateTimeUtcFromString,
  checkedAt: Schema.DateTimeUtcFromString,
  ok: Schema.Boolean,
  durationMs: Schema.Finite,
  dnsMs: Schema.NullOr(Schema.Finite),
  connectMs: Schema.NullOr(Schema.Finite),
  tlsMs: Schema.NullOr(Schema.Finite),
  firstByteMs: Schema.NullOr(Schema.Finite),
  statusCode: Schema.NullOr(Schema.Finite),
  error: Schema.NullOr(Schema.String),
  sslDaysLeft: Schema.NullOr(Schema.Finite)
}) {}

/**
 * A run a region did not measure, listed among the results: its probe took the job more than
 * one interval late and gave it up (`reason: "late"`), or no scheduler published it
 * (`reason: "scheduler-away"`, `probe: "(scheduler)"`). No data: it moves neither state nor uptime.
 */
export class MonitorMiss extends Class<MonitorMiss>("MonitorMiss")({
  outcome: Schema.Literal("missed"),
  region: Schema.String,
  /** The probe that gave the run up; `(scheduler)` for a run no scheduler published. */
  probe: Schema.String,
  scheduledAt: Schema.DateTimeUtcFromString,
  recordedAt: Schema.DateTimeUtcFromString,
  reason: MissReason.annotate({
    description: "\"late\": every probe of the region took the job more than one interval late; " +
      "\"scheduler-away\": no scheduler published the run (none was active, or the active one stalled for " +
      "longer than the interval), recorded by the scheduler when it took over or caught up"
  })
}) {}

/** A scheduled run of a monitor in one region: checked, or missed. */
export const MonitorRun = Schema.Union([MonitorResult, MonitorMiss])
export type MonitorRun = typeof MonitorRun.Type

/** The fields of creation and update beyond the original ones (docs/monitor-fleet.md, "Monitor settings"). */
const checkFields = {
  quorum: Schema.optionalKey(QuorumRule),
  degradedAboveMs: Schema.optionalKey(DegradedAboveMs),
  method: Schema.optionalKey(HttpMethod),
  headers: Schema.optionalKey(Schema.NullOr(Headers)),
  body: Schema.optionalKey(Schema.NullOr(RequestBody)),
  expectedStatusCodes: Schema.optionalKey(ExpectedStatusCodes),
  bodyContains: Schema.optionalKey(Schema.NullOr(BodyText)),
  bodyNotContains: Schema.optionalKey(Schema.NullOr(BodyText)),
  assertions: Schema.optionalKey(Schema.NullOr(JsonAssertions)),
  dnsRecordType: Schema.optionalKey(DnsRecordType),
  dnsExpectedValues: Schema.optionalKey(Schema.NullOr(DnsExpectedValues)),
  password: Schema.optionalKey(Schema.NullOr(Password)),
  grpcService: Schema.optionalKey(Schema.NullOr(GrpcService)),
  pingCount: Schema.optionalKey(Schema.NullOr(PingCount)),
  incidentPolicy: Schema.optionalKey(IncidentPolicy),
  incidentTemplateId: Schema.optionalKey(Schema.NullOr(IncidentTemplateId)),
  resolveAfterSeconds: Schema.optionalKey(ResolveAfterSeconds),
  graceSeconds: Schema.optionalKey(GraceSeconds)
}

export class CreateMonitor extends Class<CreateMonitor>("CreateMonitor")({
  componentId: ComponentId,
  type: MonitorType,
  /** Every type but push, whose URL the service makes. */
  url: Schema.optionalKey(Target),
  /** push only: the token to keep (one another tool made); absent: a new one is made. */
  pushToken: Schema.optionalKey(PushToken),
  intervalSeconds: Schema.optionalKey(IntervalSeconds),
  timeoutMs: Schema.optionalKey(TimeoutMs),
  expectedStatusCode: Schema.optionalKey(ExpectedStatusCode),
  failureThreshold: Schema.optionalKey(FailureThreshold),
  regions: Schema.optionalKey(Regions),
  ...checkFields
}) {}

export class UpdateMonitor extends Class<UpdateMonitor>("UpdateMonitor")({
  componentId: Schema.optionalKey(ComponentId),
  type: Schema.optionalKey(MonitorType),
  url: Schema.optionalKey(Target),
  intervalSeconds: Schema.optionalKey(IntervalSeconds),
  timeoutMs: Schema.optionalKey(TimeoutMs),
  expectedStatusCode: Schema.optionalKey(Schema.NullOr(ExpectedStatusCode)),
  failureThreshold: Schema.optionalKey(FailureThreshold),
  regions: Schema.optionalKey(Regions),
  ...checkFields
}) {}

/** The check a monitor describes, after defaults: what is stored and sent to probes. */
export interface MonitorDefinition {
  readonly componentId: ComponentId
  readonly type: MonitorType
  readonly url: string
  readonly intervalSeconds: number
  readonly timeoutMs: number
  readonly failureThreshold: number
  readonly regions: ReadonlyArray<string> | null
  readonly quorum: QuorumRule
  readonly degradedAboveMs: number | null
  /** http only: null for the other types, never null for http. */
  readonly method: HttpMethod | null
  readonly headers: Headers | null
  readonly body: string | null
  /** http only: null for the other types, never null for http. */
  readonly expectedStatusCodes: ReadonlyArray<string> | null
  readonly bodyContains: string | null
  readonly bodyNotContains: string | null
  readonly assertions: ReadonlyArray<JsonAssertion> | null
  /** dns only: null for the other types, never null for dns. */
  readonly dnsRecordType: DnsRecordType | null
  readonly dnsExpectedValues: ReadonlyArray<string> | null
  /** postgres, mysql, redis, mqtt, amqp only: the password sent to log in. */
  readonly password: string | null
  /** grpc only: the service asked; null: the server's overall health. */
  readonly grpcService: string | null
  /** icmp only: null for the other types, never null for icmp. */
  readonly pingCount: number | null
  /** push only: null for the other types, never null for push. */
  readonly graceSeconds: number | null
  /** What an outage opens; not part of the check the probes run. */
  readonly incidentPolicy: IncidentPolicy
  readonly incidentTemplateId: string | null
  readonly resolveAfterSeconds: number
}

/** The fields that belong to one type. */
export type TypeFields = Pick<
  MonitorDefinition,
  | "method"
  | "headers"
  | "body"
  | "expectedStatusCodes"
  | "bodyContains"
  | "bodyNotContains"
  | "assertions"
  | "dnsRecordType"
  | "dnsExpectedValues"
  | "password"
  | "grpcService"
  | "pingCount"
  | "graceSeconds"
>

/** The defaults of the fields that belong to one type; null for the others. */
export const typeDefaults = (type: MonitorType): TypeFields => ({
  method: type === "http" ? "GET" as const : null,
  headers: null,
  body: null,
  expectedStatusCodes: type === "http" ? [String(monitorLimits.expectedStatusCode.default)] : null,
  bodyContains: null,
  bodyNotContains: null,
  assertions: null,
  dnsRecordType: type === "dns" ? "A" as const : null,
  dnsExpectedValues: null,
  password: null,
  grpcService: null,
  pingCount: type === "icmp" ? monitorLimits.pingCount.default : null,
  graceSeconds: type === "push" ? monitorLimits.graceSeconds.default : null
})

const port = (value: string) => /^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535

/** A DNS name: labels of letters, digits, '-' and '_' (as in _dmarc), at most 253 characters. */
const hostName = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/

/** The host name a dns monitor resolves, bare and lower case, or the reason it is not one. */
const dnsTarget = (target: string): { url: string } | { problem: string } => {
  const name = /^dns:\/\//i.test(target) ? target.slice("dns://".length) : target
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) {
    return { problem: "a dns monitor needs a host name such as example.com, or dns://example.com" }
  }
  if (name.includes("/") || name.includes("?") || name.includes("#")) {
    return { problem: "a dns monitor names a host, without a path" }
  }
  if (name.includes(":")) return { problem: "a dns monitor names a host, without a port" }
  const bare = name.toLowerCase().replace(/\.$/, "")
  if (!hostName.test(bare)) return { problem: "a dns monitor needs a host name such as example.com" }
  if (/^\d+$/.test(bare.slice(bare.lastIndexOf(".") + 1))) {
    return { problem: "a dns monitor resolves a host name, not an address" }
  }
  return { url: bare }
}

/** The host an icmp monitor pings, bare (a name in lower case, an address as given), or the reason it is not one. */
const icmpTarget = (target: string): { url: string } | { problem: string } => {
  const host = target.replace(/^\[(.*)\]$/, "$1")
  if (isIPv4(host) || isIPv6(host)) return { url: host }
  const bare = host.toLowerCase().replace(/\.$/, "")
  return hostName.test(bare) && !/^\d+$/.test(bare.slice(bare.lastIndexOf(".") + 1))
    ? { url: bare }
    : { problem: "an icmp monitor needs a host name or an IP address, without a scheme or a port" }
}

/** The schemes of the database and broker monitors, and what the path of their URL may hold. */
const serviceSchemes: Partial<
  Record<MonitorType, { schemes: ReadonlyArray<string>; path: RegExp | null; form: string }>
> = {
  postgres: { schemes: ["postgres:"], path: /^\/[^/]{1,63}$/, form: "postgres://[user@]host[:port][/database]" },
  mysql: { schemes: ["mysql:"], path: /^\/[^/]{1,64}$/, form: "mysql://[user@]host[:port][/database]" },
  redis: {
    schemes: ["redis:", "rediss:"],
    path: /^\/\d{1,5}$/,
    form: "redis://[user@]host[:port][/db-number] or rediss://"
  },
  mqtt: { schemes: ["mqtt:", "mqtts:"], path: null, form: "mqtt://[user@]host[:port] or mqtts://" },
  amqp: {
    schemes: ["amqp:", "amqps:"],
    path: /^\/[^/]{1,255}$/,
    form: "amqp://[user@]host[:port][/vhost] or amqps://"
  },
  grpc: { schemes: ["grpc:", "grpcs:"], path: null, form: "grpc://host:port or grpcs://host:port" }
}

/**
 * The URL of a grpc, database or broker monitor in its stored form: scheme, user, host, port
 * and path as given (no query, no fragment), never a password: that goes in `password`.
 */
const serviceTarget = (type: MonitorType, target: string): { url: string } | { problem: string } => {
  const rule = serviceSchemes[type]!
  const needs = `a ${type} monitor needs ${rule.form}`
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return { problem: needs }
  }
  if (!rule.schemes.includes(url.protocol.toLowerCase()) || url.hostname === "") return { problem: needs }
  if (url.password !== "") return { problem: "put the password in `password`, not in the URL" }
  if (url.search !== "" || url.hash !== "") return { problem: `${needs}, without a query or a fragment` }
  const path = url.pathname === "/" ? "" : url.pathname
  if (path !== "" && (rule.path === null || !rule.path.test(path))) return { problem: needs }
  if (type === "grpc" && url.port === "") return { problem: needs }
  if (type !== "grpc" && url.username === "" && target.includes("@")) return { problem: needs }
  const user = url.username === "" ? "" : `${url.username}@`
  return { url: `${url.protocol.toLowerCase()}//${user}${url.host.toLowerCase()}${path}` }
}

/** The target in its stored form, or the reason it does not suit the type. */
export const normalizeTarget = (type: MonitorType, target: string): { url: string } | { problem: string } => {
  if (type === "dns") return dnsTarget(target)
  // The service makes a push monitor's URL; the stored target is its path, token masked.
  if (type === "push") return { url: pushTarget }
  if (type === "icmp") return icmpTarget(target)
  if (serviceSchemes[type] !== undefined) return serviceTarget(type, target)
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

/** An HTTP token (RFC 9110): what a header name is made of. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const headerIssues = (headers: Headers): Array<Issue> => {
  const issues: Array<Issue> = []
  const names = Object.keys(headers)
  if (names.length > monitorLimits.headers.max) {
    issues.push({ path: ["headers"], message: `must have at most ${monitorLimits.headers.max} headers` })
  }
  const seen = new Set<string>()
  for (const name of names) {
    const lower = name.toLowerCase()
    if (!headerName.test(name) || name.length > monitorLimits.headers.nameLength) {
      issues.push({
        path: ["headers", name],
        message:
          `must be a header name (letters, digits and !#$%&'*+.^_\`|~-), at most ${monitorLimits.headers.nameLength} characters`
      })
    } else if (refusedHeaders.includes(lower)) {
      issues.push({ path: ["headers", name], message: "is set by the check itself and cannot be given" })
    } else if (seen.has(lower)) {
      issues.push({ path: ["headers", name], message: "repeats a header name (names are case-insensitive)" })
    }
    seen.add(lower)
  }
  return issues
}

// Pure, not node:net: this module is bundled into the dashboard too.
const isIPv4 = (text: string) =>
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(text)
/** The URL parser knows IPv6 in every notation; the character check keeps zones and other text out. */
const isIPv6 = (text: string) => {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return false
  try {
    new URL(`http://[${text}]/`)
    return true
  } catch {
    return false
  }
}

const httpFields = [
  "method",
  "headers",
  "body",
  "expectedStatusCodes",
  "bodyContains",
  "bodyNotContains",
  "assertions"
] as const
const dnsFields = ["dnsRecordType", "dnsExpectedValues"] as const
/** The types that log in with a password. */
export const passwordTypes: ReadonlyArray<MonitorType> = ["postgres", "mysql", "redis", "mqtt", "amqp"]

/**
 * The rules across fields: the target suits the type, the time-out fits in the interval, the
 * fields of a type are set for it only, a body goes with POST only, an integer quorum fits the
 * monitor's regions, and header names are valid, allowed and distinct.
 */
export const definitionIssues = (definition: MonitorDefinition): Array<Issue> => {
  const issues: Array<Issue> = []
  const target = normalizeTarget(definition.type, definition.url)
  if ("problem" in target) issues.push({ path: ["url"], message: target.problem })
  if (definition.timeoutMs >= definition.intervalSeconds * 1000) {
    issues.push({ path: ["timeoutMs"], message: "must be shorter than the interval" })
  }
  if (definition.regions !== null && new Set(definition.regions).size !== definition.regions.length) {
    issues.push({ path: ["regions"], message: "must not repeat a region" })
  }
  if (
    typeof definition.quorum === "number" && definition.regions !== null &&
    definition.quorum > definition.regions.length
  ) {
    issues.push({
      path: ["quorum"],
      message: `must not be more than the monitor's ${definition.regions.length} region(s)`
    })
  }
  for (const field of httpFields) {
    if (definition.type !== "http" && definition[field] !== null) {
      issues.push({ path: [field], message: "applies to http monitors only" })
    }
  }
  for (const field of dnsFields) {
    if (definition.type !== "dns" && definition[field] !== null) {
      issues.push({ path: [field], message: "applies to dns monitors only" })
    }
  }
  if (!passwordTypes.includes(definition.type) && definition.password !== null) {
    issues.push({ path: ["password"], message: `applies to ${passwordTypes.join(", ")} monitors only` })
  }
  if (definition.type !== "grpc" && definition.grpcService !== null) {
    issues.push({ path: ["grpcService"], message: "applies to grpc monitors only" })
  }
  if (definition.type !== "icmp" && definition.pingCount !== null) {
    issues.push({ path: ["pingCount"], message: "applies to icmp monitors only" })
  }
  if (definition.type !== "push" && definition.graceSeconds !== null) {
    issues.push({ path: ["graceSeconds"], message: "applies to push monitors only" })
  }
  // A run is admitted up to about three intervals late (ResultAdmission): a longer grace would outlast it.
  if (definition.graceSeconds !== null && definition.graceSeconds > definition.intervalSeconds) {
    issues.push({ path: ["graceSeconds"], message: "must not be longer than the interval" })
  }
  if (definition.type === "http") {
    if (definition.body !== null && definition.method !== "POST") {
      issues.push({ path: ["body"], message: "is sent with POST only: set method to POST, or body to null" })
    }
    if (definition.method === "HEAD") {
      for (const field of ["bodyContains", "bodyNotContains", "assertions"] as const) {
        if (definition[field] !== null) {
          issues.push({ path: [field], message: "cannot be checked: the answer to a HEAD has no body" })
        }
      }
    }
    if (definition.headers !== null) issues.push(...headerIssues(definition.headers))
  }
  if (definition.type === "dns" && definition.dnsExpectedValues !== null) {
    const isAddress = definition.dnsRecordType === "A" ? isIPv4 : definition.dnsRecordType === "AAAA" ? isIPv6 : null
    definition.dnsExpectedValues.forEach((value, index) => {
      if (isAddress !== null && !isAddress(value.trim())) {
        issues.push({
          path: ["dnsExpectedValues", index],
          message: `must be an ${
            definition.dnsRecordType === "A" ? "IPv4" : "IPv6"
          } address for ${definition.dnsRecordType} records`
        })
      }
    })
  }
  return issues
}
