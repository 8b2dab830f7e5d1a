/**
 * How check results become a monitor's state (docs/monitor-fleet.md, "Quorum"): per region, a
 * streak of consecutive failures; across the regions that report (checked within the last two
 * intervals, among the monitor's regions, and not offline), a quorum. The monitor's `quorum`
 * says how many failing regions make it down: a majority (the default), any one, all of them,
 * or at least k. A quorum of regions whose last check succeeded slower than `degradedAboveMs`
 * makes it degraded. Pure, so the rules are tested alone.
 */

export type MonitorState = "unknown" | "up" | "degraded" | "down"

/** How many failing regions make a monitor down: `majority` (more than half), `any` (one), `all`, or at least k. */
export type QuorumRule = "majority" | "any" | "all" | number

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

/**
 * Whether the region's last check was a slow success: it succeeded in more than `degradedAboveMs`.
 * Read from the stored duration, so a changed threshold applies to the last checks at once.
 */
export const isDegraded = (status: RegionStatus, degradedAboveMs: number | null): boolean =>
  status.lastOk && degradedAboveMs !== null && status.lastDurationMs > degradedAboveMs

export interface QuorumMonitor {
  readonly state: MonitorState
  readonly intervalSeconds: number
  readonly failureThreshold: number
  /** The regions that check it; null: every region. */
  readonly regions: ReadonlyArray<string> | null
  /** Absent: `majority`. */
  readonly quorum?: QuorumRule
  /** A success slower than this counts as degraded; absent or null: never. */
  readonly degradedAboveMs?: number | null
}

/**
 * The regions whose data counts for the monitor now: among its regions, checked within the last
 * two intervals (a region that stopped reporting drops out), and not offline (a region whose
 * probes all went silent is "no data", not a failing region).
 */
export const reportingRegions = <R extends Pick<RegionStatus, "region" | "lastScheduledAt">>(
  monitor: Pick<QuorumMonitor, "intervalSeconds" | "regions">,
  regions: ReadonlyArray<R>,
  now: number,
  offline: ReadonlySet<string> = new Set()
): Array<R> =>
  regions.filter((r) =>
    now - r.lastScheduledAt <= 2 * monitor.intervalSeconds * 1000 &&
    (monitor.regions === null || monitor.regions.includes(r.region)) &&
    !offline.has(r.region)
  )

export type Transition =
  | { readonly _tag: "Down"; readonly since: number }
  | { readonly _tag: "Up"; readonly at: number }
  | { readonly _tag: "Degraded"; readonly at: number }
  | { readonly _tag: "Unchanged" }

const unchanged: Transition = { _tag: "Unchanged" }

/** More than half of `n`. */
const majorityOf = (n: number) => Math.floor(n / 2) + 1

/**
 * Of `n` reporting regions: how many failing ones make the monitor down (more than `n` when it
 * cannot go down), and how many last successes make it up. Majority keeps its rule: a majority
 * each way. The others are up once fewer than `down` regions can still be failing: `n - down + 1`
 * successes, at least one (`any`: every region; `all`: one).
 */
export const quorumCounts = (rule: QuorumRule, n: number): { readonly down: number; readonly up: number } => {
  if (rule === "majority") return { down: majorityOf(n), up: majorityOf(n) }
  const down = rule === "any" ? 1 : rule === "all" ? n : rule
  return { down, up: Math.max(1, n - down + 1) }
}

/** The `count`-th smallest of `times`. */
const nth = (times: ReadonlyArray<number>, count: number) => [...times].sort((a, b) => a - b)[count - 1]!

/**
 * The monitor's transition after its regions' latest checks, if any. Regions in `offline` are left
 * out as no data. Down is dated from when the quorum first held; leaving down (up or degraded) from
 * when enough regions had succeeded again. Degraded is not downtime: it never opens an interval.
 */
export const decide = (
  monitor: QuorumMonitor,
  regions: ReadonlyArray<RegionStatus>,
  now: number,
  offline: ReadonlySet<string> = new Set()
): Transition => {
  const recent = reportingRegions(monitor, regions, now, offline)
  if (recent.length === 0) return unchanged
  const needed = quorumCounts(monitor.quorum ?? "majority", recent.length)
  const failing = recent.filter((r) => r.consecutiveFailures >= monitor.failureThreshold)
  const succeeding = recent.filter((r) => r.lastOk)
  if (needed.down <= recent.length && failing.length >= needed.down) {
    if (monitor.state === "down") return unchanged
    // Down from the moment the `needed`-th region started its streak: when the quorum first held.
    return { _tag: "Down", since: nth(failing.map((r) => r.failingSince ?? r.lastScheduledAt), needed.down) }
  }
  if (succeeding.length < needed.up) return unchanged
  const degraded = succeeding.filter((r) => isDegraded(r, monitor.degradedAboveMs ?? null))
  const slow = needed.down <= recent.length && degraded.length >= needed.down
  const target = slow ? "degraded" : "up"
  if (monitor.state === target) return unchanged
  const at = monitor.state === "down" || !slow
    ? nth(succeeding.map((r) => r.lastScheduledAt), needed.up)
    : nth(degraded.map((r) => r.lastScheduledAt), needed.down)
  return slow ? { _tag: "Degraded", at } : { _tag: "Up", at }
}

/** The component status its monitors call for: all down a major outage, some a partial one, any degraded `degraded`. */
export const statusFromMonitors = (states: ReadonlyArray<MonitorState>) => {
  const down = states.filter((s) => s === "down").length
  return down === states.length && down > 0
    ? "major_outage" as const
    : down > 0
    ? "partial_outage" as const
    : states.includes("degraded")
    ? "degraded" as const
    : "operational" as const
}
