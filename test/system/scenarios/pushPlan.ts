/**
 * Push monitors in the checks scenario: the client is the job each one watches, so it knows
 * every run to expect. For each monitor and each slot of the window (by the slot rule) it pushes
 * `up` within the slot, `up` late (within the grace, after the slot ended), `down`, or nothing;
 * the pushes go to both API instances in turn. Afterwards each slot must have exactly one run in
 * the region `push`: a success for an up push (late or not), `pushed down: …` for a down one,
 * and the active scheduler's `(deadline)` failure for none.
 *
 * A push in the slot is sent after the grace of the slot before has run out, and a late one
 * before the next slot's own push, so that each push counts for the slot the plan meant.
 */
import type pg from "pg"

import { sleep } from "../Processes.js"
import type { Random } from "../Random.js"
import { slotsIn } from "../Runs.js"
import type { TestBed } from "../TestBed.js"

export const pushMonitorCount = 20
export const pushIntervalSeconds = 10
export const pushGraceSeconds = 3
const intervalMs = pushIntervalSeconds * 1000
const graceMs = pushGraceSeconds * 1000

type Action = "up" | "late" | "down" | "none"

interface PlannedRun {
  readonly monitorId: string
  readonly token: string
  readonly slot: number
  readonly action: Action
  /** When the push is sent; none for `none`. */
  readonly at: number | undefined
}

export interface PushMonitor {
  readonly id: string
  readonly token: string
}

/** The push monitors, created (on the second instance) before the window so none is in its first slot. */
export const createPushMonitors = async (bed: TestBed, componentId: string): Promise<ReadonlyArray<PushMonitor>> => {
  const monitors: Array<PushMonitor> = []
  for (let i = 0; i < pushMonitorCount; i++) {
    const monitor = await bed.apis[1].operator.ok<{ id: string; pushToken: string }>(
      "POST",
      "/api/v1/admin/monitors",
      { componentId, type: "push", intervalSeconds: pushIntervalSeconds, graceSeconds: pushGraceSeconds }
    )
    monitors.push({ id: monitor.id, token: monitor.pushToken })
  }
  return monitors
}

/** What the client will do for every slot of every monitor in `[from, to)`. */
export const planPushes = (
  monitors: ReadonlyArray<PushMonitor>,
  random: Random,
  from: number,
  to: number
): ReadonlyArray<PlannedRun> =>
  monitors.flatMap((monitor) =>
    slotsIn(monitor.id, intervalMs, from, to).map((slot): PlannedRun => {
      const draw = random.between(0, 100)
      const action: Action = draw < 70 ? "up" : draw < 80 ? "late" : draw < 90 ? "down" : "none"
      // In the slot: after the grace of the slot before (whose late push may be pending), before its end.
      const inSlot = slot + graceMs + random.between(500, intervalMs - graceMs - 1_000)
      const late = slot + intervalMs + random.between(300, graceMs - 700)
      return {
        monitorId: monitor.id,
        token: monitor.token,
        slot,
        action,
        at: action === "none" ? undefined : action === "late" ? late : inSlot
      }
    })
  )

/**
 * Sends the plan's pushes at their times, each on a timer of its own, to the two API instances
 * in turn; the answers that were not 200, and how late the latest push left (whether each still
 * counted for its slot is what `judgePushes` reads).
 */
export const sendPushes = async (bed: TestBed, plan: ReadonlyArray<PlannedRun>) => {
  const sends = plan.filter((run) => run.at !== undefined).sort((a, b) => a.at! - b.at!)
  const failures: Array<string> = []
  let latestMs = 0
  await Promise.all(sends.map((run, i) =>
    sleep(Math.max(0, run.at! - Date.now())).then(async () => {
      latestMs = Math.max(latestMs, Date.now() - run.at!)
      const api = bed.apis[i % 2]
      const query = run.action === "down" ? "?status=down&msg=planned%20failure" : "?status=up&msg=OK&ping=5"
      const response = await fetch(`${api.baseUrl}/api/v1/push/${run.token}${query}`).catch((error: unknown) => error)
      if (!(response instanceof Response) || response.status !== 200) {
        failures.push(
          `${run.monitorId}:${run.slot} ${response instanceof Response ? response.status : String(response)}`
        )
      }
    })
  ))
  return { failures, latestMs }
}

export interface PushJudgement {
  readonly expected: number
  /** Slots with exactly one run in the region push, of the outcome the plan calls for. */
  readonly asPlanned: number
  readonly lost: number
  readonly twice: number
  readonly wrong: number
  readonly byAction: Record<Action, number>
  readonly examples: ReadonlyArray<string>
}

/** Each planned slot's runs in the region push, once the last deadline has passed. */
export const judgePushes = async (sql: pg.Client, plan: ReadonlyArray<PlannedRun>): Promise<PushJudgement> => {
  const ids = [...new Set(plan.map((run) => run.monitorId))]
  const { rows } = await sql.query<
    { monitor_id: string; scheduled_at: number; ok: boolean; probe: string; error: string }
  >(
    `select monitor_id, round(extract(epoch from scheduled_at) * 1000)::float8 as scheduled_at, ok, probe, error
       from check_results where monitor_id = any($1) and region = 'push'`,
    [ids]
  )
  const runs = new Map<string, Array<(typeof rows)[number]>>()
  for (const row of rows) {
    const key = `${row.monitor_id}:${row.scheduled_at}`
    runs.set(key, [...(runs.get(key) ?? []), row])
  }
  let asPlanned = 0
  let lost = 0
  let twice = 0
  let wrong = 0
  const examples: Array<string> = []
  const byAction: Record<Action, number> = { up: 0, late: 0, down: 0, none: 0 }
  for (const run of plan) {
    byAction[run.action]++
    const key = `${run.monitorId}:${run.slot}`
    const found = runs.get(key) ?? []
    if (found.length === 0) {
      lost++
      if (examples.length < 5) examples.push(`lost ${key} (${run.action})`)
      continue
    }
    if (found.length > 1) twice++
    const [stored] = found
    const matches = run.action === "up" || run.action === "late"
      ? stored!.ok && stored!.probe === "(push)"
      : run.action === "down"
      ? !stored!.ok && stored!.error === "pushed down: planned failure"
      : !stored!.ok && stored!.probe === "(deadline)"
    if (matches && found.length === 1) asPlanned++
    else if (!matches) {
      wrong++
      if (examples.length < 5) examples.push(`${key} ${run.action}: stored ${JSON.stringify(stored)}`)
    }
  }
  return { expected: plan.length, asPlanned, lost, twice, wrong, byAction, examples }
}

/** When the last deadline of the plan has passed, with a margin for the judge's second. */
export const lastDeadline = (plan: ReadonlyArray<PlannedRun>) =>
  Math.max(...plan.map((run) => run.slot)) + intervalMs + graceMs + 3_000
