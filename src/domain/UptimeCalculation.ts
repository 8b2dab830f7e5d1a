/**
 * Time-weighted downtime of one component in one time bucket, from its status history and
 * its monitors' down intervals. Pure: the aggregation fiber feeds it rows, tests feed it
 * made-up timelines.
 */
import type { ComponentStatus } from "./Component.js"
import { downtimeWeight, monitorDowntimeWeight } from "./Uptime.js"

export interface StatusChange {
  readonly at: number
  readonly status: ComponentStatus
}

export interface DownInterval {
  readonly start: number
  /** null while the monitor is still down. */
  readonly end: number | null
}

export interface ComponentTimeline {
  readonly createdAt: number
  /** Sorted by time; the first is the status at creation. */
  readonly statusChanges: ReadonlyArray<StatusChange>
  /** How many monitors the component has; 0 means its status history decides. */
  readonly monitorCount: number
  readonly downIntervals: ReadonlyArray<DownInterval>
}

export interface BucketUptime {
  /** Seconds of the bucket the component existed, up to now. */
  readonly observedSeconds: number
  /** Weighted seconds of downtime within them. */
  readonly downtimeSeconds: number
}

const statusAt = (changes: ReadonlyArray<StatusChange>, at: number): ComponentStatus => {
  let status: ComponentStatus = changes[0]?.status ?? "operational"
  for (const change of changes) {
    if (change.at > at) break
    status = change.status
  }
  return status
}

/**
 * With monitors, the share of them that is down decides (all: 100 %, some: 30 %), except
 * during maintenance; without monitors, the status the operator set decides.
 */
export const bucketUptime = (
  timeline: ComponentTimeline,
  bucket: { readonly start: number; readonly end: number },
  now: number
): BucketUptime => {
  const from = Math.max(bucket.start, timeline.createdAt)
  const to = Math.min(bucket.end, now)
  if (to <= from) return { observedSeconds: 0, downtimeSeconds: 0 }

  const inside = (at: number) => at > from && at < to
  const breakpoints = new Set<number>([from, to])
  for (const change of timeline.statusChanges) if (inside(change.at)) breakpoints.add(change.at)
  for (const interval of timeline.downIntervals) {
    if (inside(interval.start)) breakpoints.add(interval.start)
    if (interval.end !== null && inside(interval.end)) breakpoints.add(interval.end)
  }
  const points = [...breakpoints].sort((a, b) => a - b)

  let downtime = 0
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i]!
    const status = statusAt(timeline.statusChanges, start)
    let weight: number
    if (timeline.monitorCount > 0) {
      const down = timeline.downIntervals.filter((d) => d.start <= start && (d.end === null || d.end > start)).length
      weight = status === "maintenance" ? 0 : monitorDowntimeWeight(down, timeline.monitorCount)
    } else {
      weight = downtimeWeight(status)
    }
    downtime += weight * (points[i + 1]! - start)
  }
  return { observedSeconds: (to - from) / 1000, downtimeSeconds: downtime / 1000 }
}

/** Uptime in percent with three decimals; 100 when nothing was observed yet. */
export const uptimePercentage = (observedSeconds: number, downtimeSeconds: number): number =>
  observedSeconds <= 0 ? 100 : Math.round(Math.max(0, 1 - downtimeSeconds / observedSeconds) * 100_000) / 1000
