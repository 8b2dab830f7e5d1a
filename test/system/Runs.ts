/**
 * The checkers' side of check runs: which runs a monitor the test created is due by the
 * scheduler's slot rule (`slotAt`), computed from the client and the clock, and which checks the
 * monitors' target saw (its own request log; each probe connects from its own address,
 * TestBed.ts), to compare with what the system stored.
 *
 * A request carries no slot. A stored result says which probe checked which slot when
 * (`checked_at`, the start of the check): it is paired with that probe's request for the monitor
 * within 2 s after. A request no result pairs with (a check run twice, or one whose result was
 * lost) belongs to the latest slot at or before it: a run starts at its slot unless its probe was
 * killed or its region down, and no probe runs a job more than one interval late
 * (`CheckJob.isStaleAt`).
 */
import { slotAt } from "../../src/workers/CheckScheduler.js"
import type { TargetRequest } from "./Sinks.js"
import { probeOfAddress, type Region } from "./TestBed.js"

/**
 * From the start of a check (`checked_at`) until the target logs its request: connecting, and busy
 * event loops. Half an interval: on a loaded two-core machine a request took over 2 s to be
 * logged, and the pairing (in order, per monitor and probe) cannot take the next run's request
 * for this one's as long as the slack stays below the interval.
 */
const requestSlackMs = (intervalMs: number) => Math.max(2_000, intervalMs / 2)

/** A run as the checkers name it: monitor, slot (`scheduledAt`, ms) and region. */
export const runKey = (monitorId: string, scheduledAt: number, region: string) =>
  `${monitorId}:${scheduledAt}@${region}`

/** The slots of a monitor in `[from, to)`, by the scheduler's rule. */
export const slotsIn = (monitorId: string, intervalMs: number, from: number, to: number) => {
  const slots: Array<number> = []
  const first = slotAt(monitorId, intervalMs, from)
  for (let slot = first < from ? first + intervalMs : first; slot < to; slot += intervalMs) slots.push(slot)
  return slots
}

/** A target request known to be a probe's check of one of the test's monitors. */
export interface CheckRequest {
  readonly monitorId: string
  readonly region: Region
  readonly probe: string
  readonly at: number
}

/**
 * The target log's requests for the given monitors (target number -> monitor id), with the
 * probe and region each came from; `unknownSource` counts requests from an address no probe has.
 */
export const checkRequests = (log: ReadonlyArray<TargetRequest>, monitorOf: ReadonlyMap<number, string>) => {
  const requests: Array<CheckRequest> = []
  let unknownSource = 0
  for (const entry of log) {
    const monitorId = monitorOf.get(entry.n)
    if (monitorId === undefined) continue
    const probe = probeOfAddress.get(entry.from)
    if (probe === undefined) unknownSource++
    else requests.push({ monitorId, region: probe.region, probe: probe.probe, at: entry.at })
  }
  return { requests, unknownSource }
}

/** A probe SIGKILLed by the test: the signal was sent at `sentAt`, the process was gone by `goneAt`. */
export interface ProbeKill {
  readonly probe: string
  readonly sentAt: number
  readonly goneAt: number
}

/** A result as stored: which probe checked which run, and when the check started. */
export interface StoredResult {
  readonly monitorId: string
  readonly region: string
  readonly probe: string
  readonly scheduledAt: number
  readonly checkedAt: number
}

/**
 * The requests of each run (run key -> requests, earliest first), and the stored results no
 * request of theirs reached the target for. Each result is paired with the earliest unused
 * request of its probe for the monitor within the slack after its `checkedAt`; a request left
 * unpaired goes to the latest slot at or before it.
 */
export const requestsByRun = (
  requests: ReadonlyArray<CheckRequest>,
  results: ReadonlyArray<StoredResult>,
  intervalMs: number
) => {
  const runs = new Map<string, Array<CheckRequest>>()
  const add = (key: string, request: CheckRequest) => {
    const list = runs.get(key)
    if (list === undefined) runs.set(key, [request])
    else list.push(request)
  }
  const group = <A extends { readonly monitorId: string; readonly probe: string }>(items: ReadonlyArray<A>) => {
    const groups = new Map<string, Array<A>>()
    for (const item of items) {
      const key = `${item.monitorId}/${item.probe}`
      const list = groups.get(key)
      if (list === undefined) groups.set(key, [item])
      else list.push(item)
    }
    return groups
  }
  const requestGroups = group(requests)
  const paired = new Set<CheckRequest>()
  const withoutRequest: Array<StoredResult> = []
  for (const [key, groupResults] of group(results)) {
    const candidates = (requestGroups.get(key) ?? []).slice().sort((a, b) => a.at - b.at)
    let next = 0
    for (const result of groupResults.slice().sort((a, b) => a.checkedAt - b.checkedAt)) {
      while (next < candidates.length && candidates[next]!.at < result.checkedAt) next++
      const request = candidates[next]
      if (request !== undefined && request.at <= result.checkedAt + requestSlackMs(intervalMs)) {
        next++
        paired.add(request)
        add(runKey(result.monitorId, result.scheduledAt, result.region), request)
      } else {
        withoutRequest.push(result)
      }
    }
  }
  for (const request of requests) {
    if (!paired.has(request)) {
      add(runKey(request.monitorId, slotAt(request.monitorId, intervalMs, request.at), request.region), request)
    }
  }
  for (const list of runs.values()) list.sort((a, b) => a.at - b.at)
  return { runs, withoutRequest }
}

export interface RepeatedCheck {
  readonly key: string
  readonly first: CheckRequest
  readonly repeat: CheckRequest
  /** The first request's probe was killed between the two: the job ran again, as at-least-once allows. */
  readonly afterKill: boolean
}

/** The runs of `keys` whose check reached the target more than once (one entry per extra request). */
export const repeatedChecks = (
  runs: ReadonlyMap<string, ReadonlyArray<CheckRequest>>,
  keys: Iterable<string>,
  kills: ReadonlyArray<ProbeKill>
) => {
  const repeated: Array<RepeatedCheck> = []
  for (const key of keys) {
    const [first, ...repeats] = runs.get(key) ?? []
    for (const repeat of repeats) {
      const afterKill = kills.some((kill) =>
        kill.probe === first!.probe && kill.goneAt > first!.at && kill.sentAt < repeat.at
      )
      repeated.push({ key, first: first!, repeat, afterKill })
    }
  }
  return repeated
}
