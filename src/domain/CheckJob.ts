/**
 * What travels between the scheduler, the probe agents and ingest: a check job (one run of a
 * monitor's check, due at `scheduledAt`) and its result, or the record that it was missed. No
 * I/O here; the probe agent imports this module without any database code.
 *
 * Times are epoch milliseconds (integers): they are compact on the wire and make the stable
 * job id `monitorId:scheduledAt` unambiguous.
 */
import { Either, type ParseResult, Schema } from "effect"

import { regionPattern } from "./Region.js"

export const CheckType = Schema.Literal("http", "tcp", "ssl_expiry")
export type CheckType = typeof CheckType.Type

const EpochMillis = Schema.Int.pipe(Schema.nonNegative())
const PositiveInt = Schema.Int.pipe(Schema.positive())
const DurationMs = Schema.Number.pipe(Schema.nonNegative())

/** The part of a monitor a probe needs to run its check. */
export const CheckDefinition = Schema.Struct({
  monitorId: Schema.NonEmptyString,
  type: CheckType,
  /** `http(s)://…` for `http`; `tcp://host:port` or `host:port` for `tcp`; `https://host[:port]` or `host[:port]` for `ssl_expiry`. */
  url: Schema.NonEmptyString,
  timeoutMs: PositiveInt,
  expectedStatusCode: Schema.Int.pipe(Schema.between(100, 599)),
  intervalSeconds: PositiveInt,
  /** The regions that run this check; absent or null: every region. */
  regions: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
})
export type CheckDefinition = typeof CheckDefinition.Type

/** The stable id of the run of `monitorId` due at `scheduledAt`: a result is stored once per id. */
export const jobIdOf = (monitorId: string, scheduledAt: number): string => `${monitorId}:${scheduledAt}`

export class CheckJob extends Schema.Class<CheckJob>("CheckJob")(
  Schema.Struct({
    id: Schema.String,
    ...CheckDefinition.fields,
    /** When the run was due (epoch ms). */
    scheduledAt: EpochMillis
  }).pipe(
    Schema.filter((job) => job.id === jobIdOf(job.monitorId, job.scheduledAt) || "id must be monitorId:scheduledAt")
  )
) {
  /**
   * The job for the run of `check` due at `scheduledAt`. `validate: false` is for a `check`
   * decoded already (the scheduler's monitors): validation costs more than publishing the job.
   */
  static forRun(check: CheckDefinition, scheduledAt: number, options: { readonly validate?: boolean } = {}): CheckJob {
    return new CheckJob({ ...check, id: jobIdOf(check.monitorId, scheduledAt), scheduledAt }, {
      disableValidation: options.validate === false
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
  static make(check: CheckDefinition): Either.Either<JobTemplate, ParseResult.ParseError> {
    return Either.map(Schema.decodeUnknownEither(CheckDefinition)(check), (valid) => new JobTemplate(valid))
  }

  private constructor(readonly check: CheckDefinition) {
    // The fields in the order of CheckJob's schema; `regions: undefined` is left out, as JSON.stringify does.
    const { monitorId, type, url, timeoutMs, expectedStatusCode, intervalSeconds, regions } = check
    const fields = JSON.stringify({ monitorId, type, url, timeoutMs, expectedStatusCode, intervalSeconds, regions })
    this.head = `{"id":${JSON.stringify(`${monitorId}:`).slice(0, -1)}`
    this.middle = `",${fields.slice(1, -1)},"scheduledAt":`
  }

  /** The job due at `scheduledAt`. */
  job(scheduledAt: number): CheckJob {
    return CheckJob.forRun(this.check, scheduledAt, { validate: false })
  }

  /** The JSON of `job(scheduledAt)`. */
  encode(scheduledAt: number): string {
    if (!Number.isSafeInteger(scheduledAt) || scheduledAt < 0) {
      throw new RangeError(`scheduledAt must be epoch milliseconds, got ${scheduledAt}`)
    }
    return `${this.head}${scheduledAt}${this.middle}${scheduledAt}}`
  }
}

/** One run of a monitor's check: what the scheduler publishes. */
export interface ScheduledRun {
  readonly template: JobTemplate
  readonly scheduledAt: number
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

/** What a check found, before the probe stamps it with the job and region. */
export const CheckOutcome = Schema.Struct({
  ok: Schema.Boolean,
  /** Wall time of the whole check. */
  durationMs: DurationMs,
  timings: CheckTimings,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  /** Whole days until the certificate expires (negative once expired); `ssl_expiry` only. */
  sslDaysLeft: Schema.NullOr(Schema.Int)
})
export type CheckOutcome = typeof CheckOutcome.Type

export class CheckResult extends Schema.Class<CheckResult>("CheckResult")({
  /** `monitorId:scheduledAt`: the same job run twice yields two results with one id, stored once. */
  jobId: Schema.String,
  monitorId: Schema.NonEmptyString,
  region: Schema.NonEmptyString,
  /** The probe instance (consumer) that ran the check. */
  probe: Schema.String,
  scheduledAt: EpochMillis,
  /** When the check started (epoch ms). */
  checkedAt: EpochMillis,
  ...CheckOutcome.fields
}) {}

/** Why a run was not measured. `late`: no probe of the region took it within one interval of `scheduledAt`. */
export const MissReason = Schema.Literal("late")
export type MissReason = typeof MissReason.Type

/**
 * A run a region did not measure: the probe that took its job too late (its region's probes
 * were all dead, or all busy) publishes this instead of running it. It travels on the results
 * stream, told from a result by its `_tag` (results carry none, so their JSON is unchanged).
 */
export class MissedCheck extends Schema.TaggedClass<MissedCheck>()("MissedCheck", {
  jobId: Schema.String,
  monitorId: Schema.NonEmptyString,
  region: Schema.NonEmptyString,
  /** The probe instance (consumer) that took the job and gave it up. */
  probe: Schema.String,
  scheduledAt: EpochMillis,
  /** When the probe gave it up (epoch ms). */
  recordedAt: EpochMillis,
  reason: MissReason
}) {
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
    }, { disableValidation: true })
  }
}

/**
 * What a probe reports for a job of its region: a result, or a miss. Decoding looks at `_tag`
 * first, so a result is checked against CheckResult alone.
 */
export const ProbeReport = Schema.Union(CheckResult, MissedCheck)
export type ProbeReport = typeof ProbeReport.Type

export const isMissed = (report: ProbeReport): report is MissedCheck => "_tag" in report

/** Region names become Redis consumer-group names: keep them short and plain. */
export const RegionName = Schema.String.pipe(
  Schema.pattern(regionPattern, { message: () => "a region is 1-63 of a-z, 0-9, '-', '_'" })
)
