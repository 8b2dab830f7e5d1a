/**
 * Which probe reports ingest accepts: only the result (or miss) of a run that was scheduled, and
 * only while it can still be an honest report of it. A report's strings are capped by its schema,
 * and its region is the results stream's it came on (src/queue); here, against the monitor it
 * names as stored now:
 *
 * - `unknown_monitor`: no such monitor (never was, or deleted since).
 * - `job_id_mismatch`: `jobId` is not `monitorId:scheduledAt`, the id the scheduler gives a run.
 * - `off_schedule`: `scheduledAt` is not one of the monitor's slots for its interval as stored
 *   now (src/domain/Slots.ts): the scheduler publishes no other run, so a probe cannot mint
 *   runs of its own. A run in flight when the interval changes is on the old grid and refused:
 *   at most one run per region goes unmeasured, the next is on the new grid.
 * - `scheduled_in_future`: `scheduledAt` is later than now plus `clockSkewMs`; a run is
 *   published when due, so only a wrong clock or a forgery dates it ahead.
 * - `region_not_monitored`: the monitor names regions and this one is not among them.
 * - `before_creation`: the run's slot is before the one in progress when the monitor was created
 *   (less the clock skew): the scheduler's first run of a monitor is that slot, so no earlier
 *   run was ever published.
 * - `before_resume`: the run's slot is before the one in progress when the monitor was last
 *   resumed (less the skew; a report that waited in Redis across a pause): a resumed monitor is
 *   judged on runs from its resume on only.
 * - `too_late`: a result more than `lateBoundMs` after its run, a miss more than the results'
 *   retention: no honest report arrives later (docs/monitor-fleet.md, "Result admission").
 *
 * Ingest adds `duplicate` (src/services/monitoring/ResultIngest.ts): the run already has a stored
 * result or miss in the report's region. So a region stores at most one report per slot the
 * scheduler publishes, and a result only within `lateBoundMs` of its slot.
 *
 * A rejected report is acknowledged and counted, never stored: it changes no state. No I/O here.
 */
import { isMissed, jobIdOf, type ProbeReport } from "./CheckJob.js"
import type { RegionStatus } from "./Quorum.js"
import { isSlot, slotAt } from "./Slots.js"

/**
 * How far apart the clocks of the scheduler, the probes, the API and ingest may be (NTP keeps
 * them much closer): a run may be dated this far ahead of ingest's clock.
 */
export const clockSkewMs = 60_000

/** Slack on top of the delays `lateBoundMs` adds up: publish retries, batch windows, conflict retries, pauses. */
export const lateSlackMs = 60_000

/**
 * The latest an honest result of a monitor of `intervalMs` reaches ingest, after its slot, when
 * ingest claims a batch left pending after `claimIdleMs` (QUEUE_CLAIM_IDLE_MS):
 *
 * - a probe starts a run at most one interval after its slot by its own clock (a later job is
 *   recorded as missed, never run, also by a sibling that claims it), and the check ends within
 *   its time-out, which is shorter than the interval: 2 intervals;
 * - the probe's and ingest's clocks may each be off by `clockSkewMs`: 2 × skew;
 * - a batch ingest fails to store (or an ingest instance that dies holding it) is claimed again
 *   once idle for `claimIdleMs`, which ingest looks for every `claimIdleMs`: 2 × claim time;
 * - a third interval and `lateSlackMs` as margin.
 */
export const lateBoundMs = (intervalMs: number, claimIdleMs: number): number =>
  3 * intervalMs + 2 * claimIdleMs + 2 * clockSkewMs + lateSlackMs

export type RejectReason =
  | "unknown_monitor"
  | "job_id_mismatch"
  | "off_schedule"
  | "scheduled_in_future"
  | "region_not_monitored"
  | "before_creation"
  | "before_resume"
  | "too_late"
  | "duplicate"

/** What admission needs of a monitor. */
export interface AdmittingMonitor {
  readonly id: string
  /** Its interval as stored now: its runs are the slots of this grid. */
  readonly intervalSeconds: number
  /** The regions that run its check; null: every region. */
  readonly regions: ReadonlyArray<string> | null
  /** When it was created (epoch ms); absent: no bound (a monitor as old as any run). */
  readonly createdAt?: number
  /** When it was last resumed after a pause (epoch ms); null or absent: never paused. */
  readonly resumedAt?: number | null
}

/** What bounds a report's age: ingest's claim time, and how long misses are kept. */
export interface AdmissionBounds {
  /** QUEUE_CLAIM_IDLE_MS of ingest. */
  readonly claimIdleMs: number
  /** How long after its slot a miss may still be stored: the results' retention (RESULTS_RETENTION_DAYS). */
  readonly missMaxAgeMs: number
}

/** The defaults of QUEUE_CLAIM_IDLE_MS (30 s) and RESULTS_RETENTION_DAYS (7). */
export const defaultBounds: AdmissionBounds = { claimIdleMs: 30_000, missMaxAgeMs: 7 * 24 * 60 * 60 * 1000 }

/**
 * The first run of `monitor` that counts from `since` (its creation, or its last resume): the
 * slot in progress then, less the clock skew. The scheduler checks a new or resumed monitor at
 * its current slot, and on a clock behind the API's may publish the slot before.
 */
export const firstSlotSince = (monitor: AdmittingMonitor, since: number | null | undefined): number =>
  since == null ? -Infinity : slotAt(monitor.id, monitor.intervalSeconds * 1000, since - clockSkewMs)

/**
 * When a report reached the queue (epoch ms), if the transport knows: its age is judged then, so
 * reports that waited for ingest (an ingest outage, the database away) are not too late for it.
 */
export type ArrivalOf = (report: ProbeReport) => number | undefined

/**
 * How long a report may have waited in the queue for ingest (every ingest instance, or the
 * database, away) and still be judged from when it arrived. A probe may give its entries explicit
 * Redis ids, so an arrival is believed only this far back: a forger buys this much, no more.
 */
export const queueWaitAllowanceMs = 30 * 60_000

/**
 * When `report` arrived, for its age: when the queue says it took it in, if that is believable
 * (not before its run, less the skew; not after now), moved no further back than the allowance;
 * else now.
 */
const arrivedAt = (report: ProbeReport, queued: number | undefined, now: number): number =>
  queued === undefined || queued < report.scheduledAt - clockSkewMs || queued > now
    ? now
    : Math.max(queued, now - queueWaitAllowanceMs)

/**
 * Why `report` is refused, or undefined when it is accepted; `monitor` is the one it names, if it
 * exists.
 */
export const rejectionOf = (
  report: ProbeReport,
  monitor: AdmittingMonitor | undefined,
  now: number,
  bounds: AdmissionBounds = defaultBounds,
  arrivalOf: ArrivalOf = () => undefined
): RejectReason | undefined => {
  if (monitor === undefined) return "unknown_monitor"
  if (report.jobId !== jobIdOf(report.monitorId, report.scheduledAt)) return "job_id_mismatch"
  const intervalMs = monitor.intervalSeconds * 1000
  if (!isSlot(monitor.id, intervalMs, report.scheduledAt)) return "off_schedule"
  if (report.scheduledAt > now + clockSkewMs) return "scheduled_in_future"
  if (monitor.regions !== null && !monitor.regions.includes(report.region)) return "region_not_monitored"
  if (report.scheduledAt < firstSlotSince(monitor, monitor.createdAt)) return "before_creation"
  if (report.scheduledAt < firstSlotSince(monitor, monitor.resumedAt)) return "before_resume"
  const maxAge = isMissed(report) ? bounds.missMaxAgeMs : lateBoundMs(intervalMs, bounds.claimIdleMs)
  if (arrivedAt(report, arrivalOf(report), now) - report.scheduledAt > maxAge) return "too_late"
  return undefined
}

export interface Rejected {
  readonly report: ProbeReport
  readonly reason: RejectReason
}

/** Splits a batch into the reports accepted, in order, and the ones refused with their reason. */
export const admit = (
  reports: ReadonlyArray<ProbeReport>,
  monitors: Iterable<AdmittingMonitor>,
  now: number,
  bounds: AdmissionBounds = defaultBounds,
  arrivalOf: ArrivalOf = () => undefined
): { readonly admitted: ReadonlyArray<ProbeReport>; readonly rejected: ReadonlyArray<Rejected> } => {
  const byId = new Map<string, AdmittingMonitor>()
  for (const monitor of monitors) byId.set(monitor.id, monitor)
  const admitted: Array<ProbeReport> = []
  const rejected: Array<Rejected> = []
  for (const report of reports) {
    const reason = rejectionOf(report, byId.get(report.monitorId), now, bounds, arrivalOf)
    if (reason === undefined) admitted.push(report)
    else rejected.push({ report, reason })
  }
  return { admitted, rejected }
}

/** The number of reports refused for each reason. */
export const countByReason = (rejected: ReadonlyArray<Rejected>): Partial<Record<RejectReason, number>> => {
  const counts: Partial<Record<RejectReason, number>> = {}
  for (const { reason } of rejected) counts[reason] = (counts[reason] ?? 0) + 1
  return counts
}

/**
 * The region's state an admitted result continues: none when the region's last run is more than
 * `lateBoundMs` before it. A failure streak never reaches across a silence longer than any honest
 * delay, so an old failure on record cannot date an outage that a new one completes.
 */
export const continuedStatus = (
  status: RegionStatus | undefined,
  scheduledAt: number,
  intervalMs: number,
  claimIdleMs: number
): RegionStatus | undefined =>
  status !== undefined && scheduledAt - status.lastScheduledAt > lateBoundMs(intervalMs, claimIdleMs)
    ? undefined
    : status

/**
 * `status` with its `failingSince` no earlier than the monitor's creation and last resume: the
 * run of the slot in progress at creation is checked after it, and an outage it starts begins
 * when the monitor does, never before it existed. Whole milliseconds, as every time of a region's
 * state is stored: the database's creation time has microseconds, which the state's column
 * refused (the report was dropped and its batch split in search of it).
 */
export const clampFailingSince = (
  status: RegionStatus,
  monitor: { readonly createdAt: number; readonly resumedAt: number | null }
): RegionStatus => {
  const start = Math.ceil(Math.max(monitor.createdAt, monitor.resumedAt ?? monitor.createdAt))
  return status.failingSince !== null && status.failingSince < start ? { ...status, failingSince: start } : status
}
