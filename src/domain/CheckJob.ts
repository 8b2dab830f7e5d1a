/**
 * What travels between the scheduler, the probe agents and ingest: a check job (one run of a
 * monitor's check, due at `scheduledAt`) and its result, or the record that it was missed. No
 * I/O here; the probe agent imports this module without any database code.
 *
 * Times are epoch milliseconds (integers): they are compact on the wire and make the stable
 * job id `monitorId:scheduledAt` unambiguous.
 */
import { Result, Schema, SchemaTransformation } from "effect"

import { pattern, storable } from "./Fields.js"
import { JsonAssertions } from "./JsonAssertion.js"
import { regionPattern } from "./Region.js"

export const CheckType = Schema.Literals([
  "http",
  "tcp",
  "ssl_expiry",
  "dns",
  "icmp",
  "grpc",
  "postgres",
  "mysql",
  "redis",
  "mqtt",
  "amqp"
])
export type CheckType = typeof CheckType.Type

const EpochMillis = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/** A reported time: up to the last instant a Date holds (year 275760); a later one is no time PostgreSQL stores. */
export const maxReportedMillis = 8.64e15
const ReportedMillis = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxReportedMillis }))
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))
/** The longest check a job may ask for: a monitor's limit, so a probe refuses a job no monitor could have made. */
export const maxTimeoutMs = 60_000
/**
 * The longest duration or timing a report may carry: the longest time-out and a slack for a
 * busy probe's event loop. Probes clamp to it; ingest refuses more (sums of absurd numbers
 * overflow the response-time rollups, and would show as Infinity).
 */
export const maxReportedMs = 120_000
const DurationMs = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: maxReportedMs }))

/** A status code (`"204"`) or an inclusive range (`"200-299"`), within 100..599. */
export const StatusCodeSpec = Schema.String.check(
  pattern(
    /^[1-5]\d\d(?:-[1-5]\d\d)?$/,
    "a status code is a code such as \"204\" or a range such as \"200-299\", within 100-599"
  ),
  Schema.makeFilter((spec: string) => {
    const [from, to = from] = spec.split("-").map(Number)
    return from! <= to! || "a status code range goes from the lower code to the higher"
  })
)

/** Whether `code` is one of `specs` (valid StatusCodeSpecs). */
export const statusCodeMatches = (specs: ReadonlyArray<string>, code: number): boolean =>
  specs.some((spec) => {
    const [from, to = from] = spec.split("-").map(Number)
    return code >= from! && code <= to!
  })

export const HttpMethod = Schema.Literals(["GET", "HEAD", "POST"])
export type HttpMethod = typeof HttpMethod.Type

export const DnsRecordType = Schema.Literals(["A", "AAAA", "CNAME", "MX", "TXT", "NS"])
export type DnsRecordType = typeof DnsRecordType.Type

/** An HTTP token (RFC 9110), what node accepts as a header name. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** No CR or LF: a value cannot start another header (what else node refuses fails the check, naming the header). */
const HeaderValue = Schema.String.check(Schema.isMaxLength(1024), pattern(/^[^\r\n]*$/))
// The names are checked by a filter, not a refined key schema: that would drop a bad name silently.
const HttpHeaders = Schema.Record(Schema.String, HeaderValue).check(
  Schema.makeFilter((headers) => {
    const names = Object.keys(headers)
    if (names.length > 20) return "at most 20 headers"
    const bad = names.find((name) => !headerName.test(name))
    return bad === undefined || `a header name is an HTTP token, not ${JSON.stringify(bad)}`
  })
)
const NeedleText = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024))

/**
 * The part of a monitor a probe needs to run its check. The fields after `regions` are
 * optional (absent or null: the behaviour before they existed), so older jobs still decode;
 * the limits are the monitor's, so a job a probe refuses is one no monitor could have made.
 */
export const CheckDefinition = Schema.Struct({
  monitorId: Schema.NonEmptyString,
  type: CheckType,
  /** `http(s)://…` for `http`; `tcp://host:port` or `host:port` for `tcp`; `https://host[:port]` or `host[:port]` for `ssl_expiry`; a host name for `dns`; a host name or an address for `icmp`; `grpc(s)://host:port` for `grpc`; `<scheme>://[user@]host[:port][/path]` for the databases and brokers. */
  url: Schema.NonEmptyString,
  timeoutMs: PositiveInt.check(Schema.isLessThanOrEqualTo(maxTimeoutMs)),
  expectedStatusCode: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 })),
  intervalSeconds: PositiveInt,
  /** The regions that run this check; absent or null: every region. */
  regions: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  /** `http`: the request method; GET when absent. */
  method: Schema.optional(Schema.NullOr(HttpMethod)),
  /** `http`: request headers, sent as given (real values, never logged). */
  headers: Schema.optional(Schema.NullOr(HttpHeaders)),
  /** `http`: the request body, sent with POST only. */
  body: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(65_536)))),
  /** `http`: the statuses that pass, codes and ranges; absent: `expectedStatusCode` alone. */
  expectedStatusCodes: Schema.optional(
    Schema.NullOr(Schema.Array(StatusCodeSpec).check(Schema.isMinLength(1), Schema.isMaxLength(20)))
  ),
  /** `http`: text the first 1 MB of the body must contain / must not contain. */
  bodyContains: Schema.optional(Schema.NullOr(NeedleText)),
  bodyNotContains: Schema.optional(Schema.NullOr(NeedleText)),
  /** `http`: assertions on the first 1 MB of the body as JSON (src/domain/JsonAssertion.ts). */
  assertions: Schema.optional(Schema.NullOr(JsonAssertions)),
  /** `dns`: the record type resolved; A when absent. */
  dnsRecordType: Schema.optional(Schema.NullOr(DnsRecordType)),
  /** `dns`: values that must all be among the answers (case-insensitive, trailing dot ignored). */
  dnsExpectedValues: Schema.optional(
    Schema.NullOr(
      Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024))).check(
        Schema.isMinLength(1),
        Schema.isMaxLength(20)
      )
    )
  ),
  /** `postgres`, `mysql`, `redis`, `mqtt`, `amqp`: the password sent to log in (the real value, never logged). */
  password: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(1024)))),
  /** `grpc`: the service whose health is asked; absent, null or "": the server's overall health. */
  grpcService: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(256)))),
  /** `icmp`: how many echo requests are sent; 3 when absent. */
  pingCount: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 }))))
})
export type CheckDefinition = typeof CheckDefinition.Type

/** A W3C trace context `traceparent` of version 00, with a trace and a span id that are not all zeros. */
const traceparentPattern = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/

export const isTraceparent = (text: string): boolean => text.length === 55 && traceparentPattern.test(text)

/**
 * The trace context a job or a result carries when tracing is on (src/observability). It only
 * links spans: a value that is not a valid `traceparent` (any type, any length) decodes as
 * absent, so it never costs the job or the result it came with.
 */
export const Traceparent = Schema.Unknown.pipe(
  Schema.decodeTo(
    Schema.UndefinedOr(Schema.String),
    SchemaTransformation.transform<string | undefined, unknown>({
      decode: (value) => (typeof value === "string" && isTraceparent(value) ? value : undefined),
      encode: (value) => value
    })
  )
)

/** The stable id of the run of `monitorId` due at `scheduledAt`: a result is stored once per id. */
export const jobIdOf = (monitorId: string, scheduledAt: number): string => `${monitorId}:${scheduledAt}`

export class CheckJob extends Schema.Class<CheckJob>("CheckJob")(
  Schema.Struct({
    id: Schema.String,
    ...CheckDefinition.fields,
    /** When the run was due (epoch ms). */
    scheduledAt: EpochMillis,
    /** The scheduler's span for this run, when tracing is on. */
    traceparent: Schema.optional(Traceparent)
  }).check(
    Schema.makeFilter((job) => job.id === jobIdOf(job.monitorId, job.scheduledAt) || "id must be monitorId:scheduledAt")
  )
) {
  /**
   * The job for the run of `check` due at `scheduledAt`. `validate: false` is for a `check`
   * decoded already (the scheduler's monitors): validation costs more than publishing the job.
   */
  static forRun(check: CheckDefinition, scheduledAt: number, options: { readonly validate?: boolean } = {}): CheckJob {
    return new CheckJob({ ...check, id: jobIdOf(check.monitorId, scheduledAt), scheduledAt }, {
      disableChecks: options.validate === false
    })
  }

  /** Whether the probes of `region` run this job. */
  isFor(region: string): boolean {
    return this.regions === undefined || this.regions === null || this.regions.includes(region)
  }

  /**
   * How late a job may start: one interval. An older job is recorded as missed instead of run,
   * so a backlog never storms a target.
   */
  isStaleAt(now: number): boolean {
    return now - this.scheduledAt > this.intervalSeconds * 1000
  }
}

const definitionFields = Object.keys(CheckDefinition.fields) as ReadonlyArray<keyof CheckDefinition>

/**
 * A monitor's check, ready to publish run after run: the scheduler makes one per monitor (and
 * again when its definition changes) and publishes each due run as `template` + `scheduledAt`.
 * `encode` writes the job's JSON directly, the same text as `JSON.stringify` of `job` (a
 * test holds them equal), without building a CheckJob: that costs more than the XADD.
 */
export class JobTemplate {
  /** The JSON of the job up to the digits of `scheduledAt` in its `id`, and from them to the value of `scheduledAt`. */
  private readonly head: string
  private readonly middle: string

  /** `check` is validated once here; the runs built from it are valid by construction. */
  static make(check: CheckDefinition): Result.Result<JobTemplate, Schema.SchemaError> {
    return Result.map(Schema.decodeUnknownResult(CheckDefinition)(check), (valid) => new JobTemplate(valid))
  }

  private constructor(readonly check: CheckDefinition) {
    // The fields in the order of CheckJob's schema; optional fields left undefined are left out, as JSON.stringify does.
    const fields = JSON.stringify(Object.fromEntries(definitionFields.map((field) => [field, check[field]])))
    this.head = `{"id":${JSON.stringify(`${check.monitorId}:`).slice(0, -1)}`
    this.middle = `",${fields.slice(1, -1)},"scheduledAt":`
  }

  /** The job due at `scheduledAt`, carrying `traceparent` when given (a valid one). */
  job(scheduledAt: number, traceparent?: string): CheckJob {
    const job = CheckJob.forRun(this.check, scheduledAt, { validate: false })
    return traceparent === undefined ? job : new CheckJob({ ...job, traceparent }, { disableChecks: true })
  }

  /** The JSON of `job(scheduledAt, traceparent)`. */
  encode(scheduledAt: number, traceparent?: string): string {
    if (!Number.isSafeInteger(scheduledAt) || scheduledAt < 0) {
      throw new RangeError(`scheduledAt must be epoch milliseconds, got ${scheduledAt}`)
    }
    return traceparent === undefined
      ? `${this.head}${scheduledAt}${this.middle}${scheduledAt}}`
      : `${this.head}${scheduledAt}${this.middle}${scheduledAt},"traceparent":${JSON.stringify(traceparent)}}`
  }
}

/** One run of a monitor's check: what the scheduler publishes. */
export interface ScheduledRun {
  readonly template: JobTemplate
  readonly scheduledAt: number
  /** The scheduler's span for the run, when tracing is on. */
  readonly traceparent?: string | undefined
}

/**
 * Time spent in each phase of a check, in milliseconds; null for a phase that did not happen
 * (no DNS lookup for an IP address, no TLS for plain HTTP or TCP, no answer after a failure).
 */
export const CheckTimings = Schema.Struct({
  dnsMs: Schema.NullOr(DurationMs),
  connectMs: Schema.NullOr(DurationMs),
  tlsMs: Schema.NullOr(DurationMs),
  /** From the request being sent to the response headers. */
  firstByteMs: Schema.NullOr(DurationMs)
})
export type CheckTimings = typeof CheckTimings.Type

export const noTimings: CheckTimings = { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null }

export const maxSslDays = 3_000_000

/** What a check found, before the probe stamps it with the job and region. */
export const CheckOutcome = Schema.Struct({
  ok: Schema.Boolean,
  /** Wall time of the whole check. */
  durationMs: DurationMs,
  timings: CheckTimings,
  /** An HTTP status, 100..599; null for other checks or when none came back. */
  statusCode: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))),
  error: Schema.NullOr(Schema.String),
  /**
   * Whole days until the certificate expires (negative once expired); `ssl_expiry` only. The
   * bound holds every date a certificate can carry (years 0000 to 9999).
   */
  sslDaysLeft: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: -maxSslDays, maximum: maxSslDays })))
})
export type CheckOutcome = typeof CheckOutcome.Type

/**
 * Bounds on what a probe reports: whatever a probe (or anyone able to write its stream) sends,
 * ingest decodes only what PostgreSQL stores and nothing absurd, so one report cannot fail
 * the batch it is stored with. Strings are capped and storable (no NUL, no unpaired
 * surrogate); probes cut `error` to `errorMaxLength` and make it storable before sending.
 */
export const errorMaxLength = 1000
/** The longest of the other strings a report carries. */
export const reportedMaxLength = { jobId: 128, monitorId: 100, region: 63, probe: 128 } as const
const Reported = <S extends Schema.Codec<string>>(schema: S, max: number): S["Rebuild"] =>
  schema.check(Schema.isMaxLength(max), Schema.makeFilter(storable))
const ReportedJobId = Reported(Schema.String, reportedMaxLength.jobId)
const ReportedMonitorId = Reported(Schema.NonEmptyString, reportedMaxLength.monitorId)
const ReportedRegion = Reported(Schema.NonEmptyString, reportedMaxLength.region)
const ReportedProbe = Reported(Schema.String, reportedMaxLength.probe)
/**
 * How far from `scheduledAt` a check may start or a miss be recorded: a job runs at most one
 * interval (a day at most) late, and a clock may be off; twice that is absurd.
 */
export const reportWindowMs = 2 * 24 * 60 * 60 * 1000
export const withinWindow = (scheduledAt: number, at: number) => Math.abs(at - scheduledAt) <= reportWindowMs

/**
 * What a probe reports for a run it measured: plain data (a struct, not a class), so a result
 * valid by construction is built as an object literal with no schema pass (the probe's own, and
 * ingest's hand decoder): in the running service, whose schema interpreter serves every schema
 * at once, one constructor pass took about 35 µs. Anything else builds one with
 * `CheckResult.make`, which checks every bound.
 */
export const CheckResult = Schema.Struct({
  /** `monitorId:scheduledAt`: the same job run twice yields two results with one id, stored once. */
  jobId: ReportedJobId,
  monitorId: ReportedMonitorId,
  region: ReportedRegion,
  /** The probe instance (consumer) that ran the check. */
  probe: ReportedProbe,
  scheduledAt: ReportedMillis,
  /** When the check started (epoch ms), within `reportWindowMs` of `scheduledAt`. */
  checkedAt: ReportedMillis,
  ...CheckOutcome.fields,
  error: Schema.NullOr(Reported(Schema.String, errorMaxLength)),
  /** The probe's span for the check, when the probe traces. */
  traceparent: Schema.optional(Traceparent)
}).check(
  Schema.makeFilter((result) =>
    withinWindow(result.scheduledAt, result.checkedAt) || "checkedAt must be within 2 days of scheduledAt"
  )
)
export type CheckResult = typeof CheckResult.Type

/** Why a probe gave a run up. `late`: no probe of the region took it within one interval of `scheduledAt`. */
export const ProbeMissReason = Schema.Literal("late")

/**
 * Why a stored run was not measured: a probe's reason, or `scheduler-away`: no scheduler
 * published its job (none held the lock, or the active one stalled for longer than an
 * interval). The scheduler records those itself (src/workers/CheckScheduler.ts); no probe may.
 */
export const MissReason = Schema.Literals([ProbeMissReason.literal, "scheduler-away"])
export type MissReason = typeof MissReason.Type

/** The `probe` of a miss the scheduler records: no probe's name (`probeNamePattern`) holds parentheses. */
export const schedulerProbe = "(scheduler)"

/**
 * A run a region did not measure: the probe that took its job too late (its region's probes
 * were all dead, or all busy) publishes this instead of running it. It travels on the results
 * stream, told from a result by its `_tag` (results carry none, so their JSON is unchanged).
 */
export class MissedCheck extends Schema.TaggedClass<MissedCheck>()(
  "MissedCheck",
  Schema.Struct({
    jobId: ReportedJobId,
    monitorId: ReportedMonitorId,
    region: ReportedRegion,
    /** The probe instance (consumer) that took the job and gave it up. */
    probe: ReportedProbe,
    scheduledAt: ReportedMillis,
    /** When the probe gave it up (epoch ms), within `reportWindowMs` of `scheduledAt`. */
    recordedAt: ReportedMillis,
    reason: ProbeMissReason
  }).check(
    Schema.makeFilter((miss) =>
      withinWindow(miss.scheduledAt, miss.recordedAt) || "recordedAt must be within 2 days of scheduledAt"
    )
  )
) {
  /** The miss `probe` of `region` records for `job`, taken at `now`; built from a decoded job, so valid. */
  static of(job: CheckJob, region: string, probe: string, now: number): MissedCheck {
    return new MissedCheck({
      jobId: job.id,
      monitorId: job.monitorId,
      region,
      probe,
      scheduledAt: job.scheduledAt,
      recordedAt: now,
      reason: "late"
    }, { disableChecks: true })
  }
}

/**
 * What a probe reports for a job of its region: a result, or a miss. Decoding looks at `_tag`
 * first, so a result is checked against CheckResult alone.
 */
export const ProbeReport = Schema.Union([CheckResult, MissedCheck])
export type ProbeReport = typeof ProbeReport.Type

export const isMissed = (report: ProbeReport): report is MissedCheck => "_tag" in report

/** `report` as coming from `region`: ingest's reading of a report, whose region is its stream's. */
export const inRegion = (report: ProbeReport, region: string): ProbeReport => {
  if (report.region === region) return report
  if (isMissed(report)) {
    const { _tag: _, ...fields } = report
    return new MissedCheck({ ...fields, region }, { disableChecks: true })
  }
  return { ...report, region }
}

/** Region names become Redis consumer-group names: keep them short and plain. */
export const RegionName = Schema.String.check(pattern(regionPattern, "a region is 1-63 of a-z, 0-9, '-', '_'"))
