/**
 * How check results become a monitor's state (docs/monitor-fleet.md): per region, a streak of consecutive
 * failures; across regions, a quorum. A monitor is down when `failureThreshold` consecutive
 * failures happened in a majority of the regions that reported within the last two intervals,
 * and up again when a majority of them last succeeded. Pure, so the rules are tested alone.
 */

export type MonitorState = "unknown" | "up" | "down"

export interface RegionStatus {
  readonly region: string
  readonly lastScheduledAt: number
  readonly lastCheckedAt: number
  readonly lastOk: boolean
  readonly consecutiveFailures: number
  /** scheduledAt of the first failure of the current streak; null after a success. */
  readonly failingSince: number | null
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  readonly lastDurationMs: number
}

export interface ObservedCheck {
  readonly region: string
  readonly scheduledAt: number
  readonly checkedAt: number
  readonly ok: boolean
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
}

/** The region's status after one more check; a check older than the last one seen changes nothing. */
export const advanceRegion = (current: RegionStatus | undefined, check: ObservedCheck): RegionStatus => {
  if (current !== undefined && check.scheduledAt <= current.lastScheduledAt) return current
  return {
    region: check.region,
    lastScheduledAt: check.scheduledAt,
    lastCheckedAt: check.checkedAt,
    lastOk: check.ok,
    consecutiveFailures: check.ok ? 0 : (current?.consecutiveFailures ?? 0) + 1,
    failingSince: check.ok ? null : (current?.lastOk === false ? current.failingSince : null) ?? check.scheduledAt,
    lastStatusCode: check.statusCode,
    lastError: check.error,
    lastDurationMs: check.durationMs
  }
}

export interface QuorumMonitor {
  readonly state: MonitorState
  readonly intervalSeconds: number
  readonly failureThreshold: number
  /** The regions that check it; null: every region. */
  readonly regions: ReadonlyArray<string> | null
}

export type Transition =
  | { readonly _tag: "Down"; readonly since: number }
  | { readonly _tag: "Up"; readonly at: number }
  | { readonly _tag: "Unchanged" }

const unchanged: Transition = { _tag: "Unchanged" }

/** More than half of `n`. */
const majorityOf = (n: number) => Math.floor(n / 2) + 1

export const decide = (monitor: QuorumMonitor, regions: ReadonlyArray<RegionStatus>, now: number): Transition => {
  const recent = regions.filter((r) =>
    now - r.lastScheduledAt <= 2 * monitor.intervalSeconds * 1000 &&
    (monitor.regions === null || monitor.regions.includes(r.region))
  )
  if (recent.length === 0) return unchanged
  const needed = majorityOf(recent.length)
  const failing = recent.filter((r) => r.consecutiveFailures >= monitor.failureThreshold)
  const succeeding = recent.filter((r) => r.lastOk)
  if (monitor.state !== "down" && failing.length >= needed) {
    // Down from the moment the `needed`-th region started its streak: when the quorum first held.
    const starts = failing.map((r) => r.failingSince ?? r.lastScheduledAt).sort((a, b) => a - b)
    return { _tag: "Down", since: starts[needed - 1]! }
  }
  if (monitor.state !== "up" && succeeding.length >= needed) {
    const recoveries = succeeding.map((r) => r.lastScheduledAt).sort((a, b) => a - b)
    return { _tag: "Up", at: recoveries[needed - 1]! }
  }
  return unchanged
}

/** The component status its monitors call for: all down a major outage, some a partial one. */
export const statusFromMonitors = (states: ReadonlyArray<MonitorState>) => {
  const down = states.filter((s) => s === "down").length
  return down === 0
    ? "operational" as const
    : down === states.length
    ? "major_outage" as const
    : "partial_outage" as const
}
