/**
 * Which probe reports ingest accepts: only the result (or miss) of a run that was scheduled. A
 * report's strings are capped by its schema, and its region is the results stream's it came on
 * (src/queue); here, against the monitor it names as stored now:
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
 * - `before_resume`: the run was scheduled before the monitor was last resumed (a report that
 *   waited in Redis across a pause): a resumed monitor is judged on runs after it only.
 *
 * A rejected report is acknowledged and logged, never stored: it changes no state. No I/O here.
 */
import { jobIdOf, type ProbeReport } from "./CheckJob.js"
import { isSlot } from "./Slots.js"

/**
 * How far ahead of the server's clock a run may be dated: the scheduler's and the ingest
 * instances' clocks may differ by this much (NTP keeps them much closer).
 */
export const clockSkewMs = 60_000

export type RejectReason =
  | "unknown_monitor"
  | "job_id_mismatch"
  | "off_schedule"
  | "scheduled_in_future"
  | "region_not_monitored"
  | "before_resume"

/** What admission needs of a monitor. */
export interface AdmittingMonitor {
  readonly id: string
  /** Its interval as stored now: its runs are the slots of this grid. */
  readonly intervalSeconds: number
  /** The regions that run its check; null: every region. */
  readonly regions: ReadonlyArray<string> | null
  /** When it was last resumed after a pause (epoch ms); null or absent: never paused. */
  readonly resumedAt?: number | null
}

/** Why `report` is refused, or undefined when it is accepted; `monitor` is the one it names, if it exists. */
export const rejectionOf = (
  report: ProbeReport,
  monitor: AdmittingMonitor | undefined,
  now: number
): RejectReason | undefined => {
  if (monitor === undefined) return "unknown_monitor"
  if (report.jobId !== jobIdOf(report.monitorId, report.scheduledAt)) return "job_id_mismatch"
  if (!isSlot(monitor.id, monitor.intervalSeconds * 1000, report.scheduledAt)) return "off_schedule"
  if (report.scheduledAt > now + clockSkewMs) return "scheduled_in_future"
  if (monitor.regions !== null && !monitor.regions.includes(report.region)) return "region_not_monitored"
  if (monitor.resumedAt != null && report.scheduledAt < monitor.resumedAt) return "before_resume"
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
  now: number
): { readonly admitted: ReadonlyArray<ProbeReport>; readonly rejected: ReadonlyArray<Rejected> } => {
  const byId = new Map<string, AdmittingMonitor>()
  for (const monitor of monitors) byId.set(monitor.id, monitor)
  const admitted: Array<ProbeReport> = []
  const rejected: Array<Rejected> = []
  for (const report of reports) {
    const reason = rejectionOf(report, byId.get(report.monitorId), now)
    if (reason === undefined) admitted.push(report)
    else rejected.push({ report, reason })
  }
  return { admitted, rejected }
}

/** The number of reports refused for each reason, for the log line. */
export const countByReason = (rejected: ReadonlyArray<Rejected>): Partial<Record<RejectReason, number>> => {
  const counts: Partial<Record<RejectReason, number>> = {}
  for (const { reason } of rejected) counts[reason] = (counts[reason] ?? 0) + 1
  return counts
}
