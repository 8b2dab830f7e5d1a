/**
 * A monitor's recent runs as a row of small bars, oldest left, as Uptime Kuma draws them: every
 * region's runs in one row, since the API lists them together. A bar's colour and height both
 * say what the run found (short green ok, taller amber slower than the degraded threshold, full
 * red failed, hollow grey missed), so colour is never the only sign; its tooltip and a visually
 * hidden list say it in words (time, region, outcome, time taken or error) for screen readers.
 */
import { DateTime } from "effect"

import type { MonitorRun } from "../../../../domain/Monitor.js"
import { formatMs } from "../../../ResponseTimeChart.js"

/** How many runs a bar shows: Uptime Kuma's recent-heartbeats length, readable on a phone. */
export const heartbeatLength = 30

/** What a run found, as its bar draws it. */
export type Beat = "ok" | "slow" | "failed" | "missed"

export const beatLabel: Record<Beat, string> = { ok: "OK", slow: "Slow", failed: "Failed", missed: "Missed" }

/**
 * Slow is a success in more than `degradedAboveMs`, the rule `domain/Quorum.ts` (`isDegraded`)
 * applies to a region's last check; a miss is no data (no result came).
 */
export const beatOf = (run: MonitorRun, degradedAboveMs: number | null): Beat =>
  run.outcome === "missed"
    ? "missed"
    : !run.ok
    ? "failed"
    : degradedAboveMs !== null && run.durationMs > degradedAboveMs
    ? "slow"
    : "ok"

// Seconds matter: runs of one minute in several regions fall within the same minute. The date
// only when it is not today's: most runs shown are of the last hour.
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" })
const dayTimeFormat = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  second: "2-digit"
})

/** When the run happened: checked, or due (a miss has no check). */
export const runAt = (run: MonitorRun): DateTime.Utc => run.outcome === "missed" ? run.scheduledAt : run.checkedAt

export const runTime = (run: MonitorRun): string => {
  const at = DateTime.toDate(runAt(run))
  return (at.toDateString() === new Date().toDateString() ? timeFormat : dayTimeFormat).format(at)
}

/** What the run found, in words without its time and region: "OK in 120 ms, HTTP 200". */
export const runOutcome = (run: MonitorRun, degradedAboveMs: number | null): string => {
  if (run.outcome === "missed") {
    return run.reason === "late" ? "Missed: its probe took it too late to run" : "Missed: no scheduler published it"
  }
  const code = run.statusCode === null ? "" : `, HTTP ${run.statusCode}`
  switch (beatOf(run, degradedAboveMs)) {
    case "failed":
      return `Failed after ${formatMs(run.durationMs)}: ${run.error ?? `HTTP ${run.statusCode ?? "error"}`}`
    case "slow":
      return `Slow: ${formatMs(run.durationMs)}, above ${formatMs(degradedAboveMs ?? 0)}${code}`
    default:
      return `OK in ${formatMs(run.durationMs)}${code}`
  }
}

/** The run in one sentence: its tooltip and its text equivalent. */
export const runPhrase = (run: MonitorRun, degradedAboveMs: number | null): string =>
  `${runTime(run)}, ${run.region}: ${runOutcome(run, degradedAboveMs)}`

export interface RunTally {
  readonly runs: number
  readonly ok: number
  readonly slow: number
  readonly failed: number
  readonly missed: number
}

export const tallyOf = (runs: ReadonlyArray<MonitorRun>, degradedAboveMs: number | null): RunTally => {
  const counts = { ok: 0, slow: 0, failed: 0, missed: 0 }
  for (const run of runs) counts[beatOf(run, degradedAboveMs)]++
  return { runs: runs.length, ...counts }
}

/**
 * "Last 30 runs: 28 ok, 1 failed, 1 missed (97% up)": up is successes (slow ones too) among the
 * runs checked, since a miss is no data; nothing when no run was checked.
 */
export const tallyPhrase = (tally: RunTally): string => {
  const checked = tally.ok + tally.slow + tally.failed
  const parts = [
    `${tally.ok + tally.slow} ok`,
    tally.slow > 0 && `${tally.slow} of them slow`,
    tally.failed > 0 && `${tally.failed} failed`,
    tally.missed > 0 && `${tally.missed} missed`
  ].filter((part) => part !== false)
  const up = checked === 0 ? "" : ` (${Math.floor((1000 * (tally.ok + tally.slow)) / checked) / 10}% up)`
  return `Last ${tally.runs} ${tally.runs === 1 ? "run" : "runs"}: ${parts.join(", ")}${up}`
}

/**
 * The bar of `runs` (newest first, as the API answers them), the newest `length` of them drawn
 * oldest left; empty places on the left while fewer runs exist. `name` names the monitor for
 * the list's screen-reader name.
 */
export const HeartbeatBar = (props: {
  readonly runs: ReadonlyArray<MonitorRun>
  readonly degradedAboveMs: number | null
  readonly name: string
  readonly length?: number
}) => {
  const length = props.length ?? heartbeatLength
  const shown = props.runs.slice(0, length).reverse()
  return (
    <div class="heartbeats">
      {/* The bars are for the eye (each with its tooltip); the list below says the same in words. */}
      <div class="heartbeat-bar" aria-hidden="true">
        {Array.from({ length: length - shown.length }, (_, index) => <span key={`empty-${index}`} class="beat" />)}
        {shown.map((run) => {
          const beat = beatOf(run, props.degradedAboveMs)
          return (
            <span
              key={`${run.region}-${DateTime.toEpochMillis(run.scheduledAt)}`}
              class={`beat beat-${beat}`}
              title={runPhrase(run, props.degradedAboveMs)}
            />
          )
        })}
      </div>
      <ol class="visually-hidden" aria-label={`Last ${shown.length} runs of ${props.name}, oldest first`}>
        {shown.map((run) => (
          <li key={`${run.region}-${DateTime.toEpochMillis(run.scheduledAt)}`}>
            {runPhrase(run, props.degradedAboveMs)}
          </li>
        ))}
      </ol>
    </div>
  )
}

/** What the bars mean, once above a list of them: shape and colour, in words. */
export const HeartbeatLegend = () => (
  <p class="heartbeat-legend small muted">
    Recent runs, oldest left:{" "}
    {(["ok", "slow", "failed", "missed"] as const).map((beat) => (
      <span key={beat} class="heartbeat-legend-item">
        <span class={`beat beat-${beat}`} aria-hidden="true" /> {legendText[beat]}
      </span>
    ))}
  </p>
)

const legendText: Record<Beat, string> = {
  ok: "ok (short)",
  slow: "slower than the degraded threshold (taller)",
  failed: "failed (full height)",
  missed: "missed, no data (hollow)"
}
