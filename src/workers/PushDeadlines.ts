/**
 * The deadlines of push monitors (docs/monitor-fleet.md, "Push monitors"): a slot whose grace
 * ran out without a push gets a failed run in the region `push`, stored by ingest as any run
 * is. The active scheduler runs this while it holds its lock, so one instance judges.
 *
 * A slot is judged once its interval and grace have passed: a push until then still counts for
 * it (PushReceiver). The slots judged are the ones after the monitor's last stored run, from
 * the first slot after its creation or resume (the one in progress then is not judged: the job
 * had no full interval to push in), and only the last two before now: after the service itself
 * was away, the slots of that time are left without data, as probe regions' are.
 */
import { Clock, Duration, Effect, Schedule } from "effect"

import { CheckResult, jobIdOf, noTimings } from "../domain/CheckJob.js"
import { pushRegion } from "../domain/Region.js"
import { slotAt } from "../domain/Slots.js"
import { type PushMonitorRow, PushMonitorsRepo } from "../persistence/PushMonitorsRepo.js"
import { firstSlot } from "../services/monitoring/PushReceiver.js"
import { ResultIngest } from "../services/monitoring/ResultIngest.js"

/** The `probe` of a failed run no push came for. */
export const deadlineProbe = "(deadline)"

const judgeEvery = Duration.seconds(1)

/** The error of a slot without a push: fixed words automation can match. */
export const noPushError = (monitor: PushMonitorRow) =>
  `no push within ${monitor.intervalSeconds} s + ${monitor.graceSeconds} s grace`

/** The slots of `monitor` whose grace has run out by `now` and that have no run, oldest first. */
export const overdueSlots = (monitor: PushMonitorRow, judgedThrough: number | undefined, now: number) => {
  const intervalMs = monitor.intervalSeconds * 1000
  const latest = slotAt(monitor.id, intervalMs, now - intervalMs - monitor.graceSeconds * 1000)
  /** The first slot after `at` on the grid of the interval as it is now (a run stored before a change of it is off this grid). */
  const after = (at: number | null | undefined) =>
    at === null || at === undefined ? -Infinity : slotAt(monitor.id, intervalMs, at) + intervalMs
  const from = Math.max(
    firstSlot(monitor, intervalMs) + intervalMs,
    after(monitor.lastRunAt),
    after(judgedThrough),
    latest - intervalMs
  )
  const slots: Array<number> = []
  for (let slot = from; slot <= latest; slot += intervalMs) slots.push(slot)
  return slots
}

/**
 * One pass over the push monitors, recording a failed run for each overdue slot; what it judged
 * is remembered across passes of the same judge.
 */
export const makePushDeadlineJudge = Effect.gen(function*() {
  const repo = yield* PushMonitorsRepo
  const ingest = yield* ResultIngest
  /** Per monitor, the latest slot judged here, so a slot is judged once even before its failure is read back. */
  const judged = new Map<string, number>()

  const judge = Effect.gen(function*() {
    const monitors = yield* repo.all()
    const now = yield* Clock.currentTimeMillis
    const failures: Array<CheckResult> = []
    for (const monitor of monitors) {
      if (monitor.paused) continue
      const slots = overdueSlots(monitor, judged.get(monitor.id), now)
      for (const scheduledAt of slots) {
        failures.push(
          CheckResult.make({
            jobId: jobIdOf(monitor.id, scheduledAt),
            monitorId: monitor.id,
            region: pushRegion,
            probe: deadlineProbe,
            scheduledAt,
            checkedAt: now,
            ok: false,
            durationMs: 0,
            timings: noTimings,
            statusCode: null,
            error: noPushError(monitor),
            sslDaysLeft: null
          })
        )
      }
    }
    const ids = new Set(monitors.map((m) => m.id))
    for (const id of judged.keys()) if (!ids.has(id)) judged.delete(id)
    if (failures.length === 0) return
    // A push that came meanwhile wins: ingest stores one run per slot, and refuses this one.
    yield* ingest.ingest(failures)
    for (const failure of failures) judged.set(failure.monitorId, failure.scheduledAt)
  })

  return judge.pipe(Effect.withSpan("PushDeadlines.judge"))
})

/**
 * Judges the push monitors' deadlines every second; never returns. `any`: whether there are
 * push monitors (the scheduler knows from its own reads), so a fleet without any costs no query.
 */
export const judgePushDeadlines = (any: () => boolean) =>
  Effect.flatMap(makePushDeadlineJudge, (judge) =>
    Effect.suspend(() => any() ? judge : Effect.void).pipe(
      Effect.catchCause((cause) => Effect.logWarning("Judging the push deadlines failed; retrying in 1 s", cause)),
      Effect.schedule(Schedule.spaced(judgeEvery)),
      Effect.andThen(Effect.never)
    ))
