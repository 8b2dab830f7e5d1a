/**
 * Ingest: stores a batch of check results and misses once each (a run has a result or a miss,
 * never both), advances every region's streak, decides each monitor's state by region quorum
 * (recording down intervals), and has the components' statuses moved as their monitors call for
 * (ComponentStatuses, their one writer), then lets the monitors' incident policies act
 * (IncidentAutomation). Misses are "no data": they move nothing.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"

import { CurrentAuditScope, systemScope } from "../../domain/Audit.js"
import { type CheckResult, isMissed, type MissedCheck, type ProbeReport } from "../../domain/CheckJob.js"
import type { ComponentId } from "../../domain/Component.js"
import type { MonitorState, RegionStatus } from "../../domain/Quorum.js"
import { advanceRegion, decide, statusFromMonitors } from "../../domain/Quorum.js"
import {
  type AdmissionBounds,
  admit,
  type ArrivalOf,
  clampFailingSince,
  continuedStatus
} from "../../domain/ResultAdmission.js"
import { IngestTally, type Refusal } from "../../observability/IngestMetrics.js"
import { type RefusalLine, RefusalLog } from "../../observability/RefusalLog.js"
import { CheckResultsRepo } from "../../persistence/CheckResultsRepo.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { type LockedMonitor, MonitorStateRepo } from "../../persistence/MonitorStateRepo.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { AppConfig, QueueConfig } from "../../runtime/Config.js"
import { linksTo, TracingEnabled } from "../../runtime/Telemetry.js"
import { AuditTrail } from "../audit/AuditTrail.js"
import { collectingMoves, ComponentStatuses, monitorsMayMove } from "../catalog/ComponentStatuses.js"
import { StateChanges, touchesComponentsById } from "../StateChanges.js"
import { IncidentAutomation } from "./IncidentAutomation.js"
import { ProbeRegistry } from "./ProbeRegistry.js"

const keyOf = (result: { jobId: string; region: string }) => `${result.jobId}|${result.region}`

/** Reports refused since the process started, for the log line. */
let refusedTotal = 0

/** A probe's line: its refusals of the last minute, counted by reason, and a few of them. */
const logRefused = (line: RefusalLine) =>
  Effect.suspend(() => {
    refusedTotal += line.total
    return Effect.logWarning("probe reports refused").pipe(
      Effect.annotateLogs({
        region: line.region,
        probe: line.probe,
        refused: JSON.stringify(line.counts),
        total: line.total,
        refusedSinceStart: refusedTotal,
        examples: line.examples.join("; ")
      })
    )
  })

/** How often each probe's refusals are logged at most. */
const refusalLogEvery = Duration.minutes(1)

/** Who moves a component's status for its monitors, in the audit log. */
const monitorsScope = systemScope("monitors")

export class ResultIngest extends Context.Service<ResultIngest>()("ResultIngest", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const checkResults = yield* CheckResultsRepo
    const monitorStates = yield* MonitorStateRepo
    const statuses = yield* ComponentStatuses
    const changes = yield* StateChanges
    const probes = yield* ProbeRegistry
    const tracing = yield* TracingEnabled
    const automation = yield* IncidentAutomation
    const audit = yield* AuditTrail
    const { claimIdleMs } = yield* QueueConfig
    const { resultsRetentionDays } = yield* AppConfig
    const bounds: AdmissionBounds = {
      claimIdleMs,
      missMaxAgeMs: Duration.toMillis(Duration.days(resultsRetentionDays))
    }

    // Refusals are logged a minute after the first one since the last lines, one line per probe:
    // a flood writes a line a minute, whatever its size. What is pending at the end is logged then.
    const scope = yield* Effect.scope
    const refusals = new RefusalLog()
    let flushing = false
    const flushRefusals = Effect.suspend(() => {
      flushing = false
      return Effect.forEach(refusals.take(), logRefused, { discard: true })
    })
    yield* Effect.addFinalizer(() => flushRefusals)
    const noteRefused = (refused: ReadonlyArray<Refusal>) =>
      Effect.suspend(() => {
        if (refused.length === 0) return Effect.void
        refusals.add(refused)
        if (flushing) return Effect.void
        flushing = true
        return Effect.sleep(refusalLogEvery).pipe(Effect.andThen(flushRefusals), Effect.forkIn(scope), Effect.asVoid)
      })

    /**
     * Stores the batch and applies quorum; returns the monitors whose state changed, and the
     * components whose status may have to move: those of these monitors, and any of the batch's
     * whose status is out of line with its monitors (a move an earlier batch did not finish).
     */
    const storeAndDecide = (reports: ReadonlyArray<ProbeReport>, tally: IngestTally, arrivalOf?: ArrivalOf) =>
      Effect.gen(function*() {
        // Every report waits for its monitor's lock first, so two ingest instances storing a
        // result and a miss of one run take turns: the later sees the other's row and keeps
        // one (a result deletes the miss; a miss is not stored next to a result). A monitor
        // deleted meanwhile has no row to lock; nothing reads its runs any more.
        const { components, monitors: locked } = yield* monitorStates.lockForIngest([
          ...new Set(reports.map((r) => r.monitorId))
        ])
        // Only reports of runs that were scheduled, and not too late, count; the others are
        // counted, logged and dropped.
        const { admitted, rejected } = admit(reports, locked, yield* Clock.currentTimeMillis, bounds, arrivalOf)
        tally.refuse(rejected)
        const results = new Map<string, CheckResult>()
        const misses = new Map<string, MissedCheck>()
        for (const report of admitted) {
          const runs = isMissed(report) ? misses : results
          // A run reported twice in the batch is stored once: the other is a duplicate.
          if (runs.has(keyOf(report))) tally.refuse([{ report, reason: "duplicate" }])
          else if (isMissed(report)) misses.set(keyOf(report), report)
          else results.set(keyOf(report), report)
        }
        // With the response times of the successes, queued for the rollups.
        const stored = new Set(
          results.size === 0 ? [] : (yield* checkResults.storeResults([...results.values()])).map(keyOf)
        )
        // After the results: a miss of a run whose result is in this batch is not stored.
        const storedMisses = new Set((yield* checkResults.insertMisses([...misses.values()])).map(keyOf))
        tally.misses([...misses.values()].filter((m) => storedMisses.has(keyOf(m))))
        // A report of a run that has its result or miss stored already (or in this batch) is a
        // duplicate: a redelivery, or more reports than the schedule asked for.
        tally.refuse([
          ...[...results.values()].filter((r) => !stored.has(keyOf(r))),
          ...[...misses.values()].filter((m) => !storedMisses.has(keyOf(m)))
        ].map((report) => ({ report, reason: "duplicate" as const })))
        const fresh = [...results.values()].filter((r) => stored.has(keyOf(r))).sort((a, b) =>
          a.scheduledAt - b.scheduledAt
        )
        tally.results(fresh)
        if (fresh.length === 0) return { componentIds: [], transitioned: [] }

        const checked = new Set(fresh.map((r) => r.monitorId))
        const monitors = locked.filter((m) => checked.has(m.id))
        const byId = new Map(monitors.map((m) => [m.id, m]))
        const regions = new Map(monitors.map((m) => [m.id, new Map(m.regionStatuses.map((s) => [s.region, s]))]))
        const touched = new Map<string, { monitorId: string; status: RegionStatus }>()
        for (const result of fresh) {
          const monitor = byId.get(result.monitorId)!
          const ofMonitor = regions.get(result.monitorId)!
          const before = ofMonitor.get(result.region)
          // A streak reaches back no further than the admission's bound, nor before the monitor.
          const continued = continuedStatus(before, result.scheduledAt, monitor.intervalSeconds * 1000, claimIdleMs)
          const advanced = advanceRegion(continued, result)
          if (advanced === continued) continue
          const after = clampFailingSince(advanced, monitor)
          ofMonitor.set(result.region, after)
          touched.set(`${result.monitorId}|${result.region}`, { monitorId: result.monitorId, status: after })
        }
        yield* monitorStates.saveRegionStatuses([...touched.values()])

        const now = yield* Clock.currentTimeMillis
        // A region whose probes have all gone silent is "no data", not a failing region.
        const offline = yield* probes.offlineRegions()
        const downs: Array<{ monitor: LockedMonitor; since: number }> = []
        const ups: Array<{ monitor: LockedMonitor; at: number; state: "up" | "degraded" }> = []
        const states = new Map<string, MonitorState>()
        for (const monitor of monitors) {
          const transition = decide(monitor, [...regions.get(monitor.id)!.values()], now, offline)
          if (transition._tag === "Down") downs.push({ monitor, since: transition.since })
          if (transition._tag === "Up") ups.push({ monitor, at: transition.at, state: "up" })
          if (transition._tag === "Degraded") ups.push({ monitor, at: transition.at, state: "degraded" })
        }
        yield* monitorStates.applyTransitions(downs, ups, now)
        tally.transitions.down = downs.length
        for (const { monitor } of downs) states.set(monitor.id, "down")
        for (const { monitor, state } of ups) {
          tally.transitions[state]++
          states.set(monitor.id, state)
        }
        // The batch's components out of line with their monitors' states as this transaction
        // leaves them; those of a transition are read again after the commit in any case, since
        // another instance may be moving a sibling monitor at the same time.
        const ofChecked = new Set(monitors.map((m) => m.componentId))
        const outOfLine = components.filter((c) =>
          ofChecked.has(c.id) && monitorsMayMove(c) &&
          statusFromMonitors(c.monitors.map(([id, state]) => states.get(id) ?? state)) !== c.status
        )
        const transitioned = [...downs, ...ups].map(({ monitor }) => monitor)
        return {
          componentIds: [...new Set([...outOfLine.map((c) => c.id), ...transitioned.map((m) => m.componentId)])],
          transitioned: transitioned.map((m) => m.id)
        }
      })

    /**
     * Moves a component's status as its monitors call for, in a commit of its own, with one audit
     * entry when it moved (`components.setStatusByMonitor`); none when it did not.
     */
    const followMonitors = (componentId: ComponentId) =>
      changes.commit(Effect.gen(function*() {
        yield* touchesComponentsById([componentId])
        const [, moves] = yield* collectingMoves(statuses.followMonitors(componentId))
        for (const move of moves) {
          yield* audit.record({
            target: { type: "component", id: move.id, name: move.name },
            changes: { status: { before: move.before, after: move.after } },
            operation: "components.setStatusByMonitor"
          })
        }
      })).pipe(Effect.provideService(CurrentAuditScope, monitorsScope))

    return {
      /** `arrivalOf`: when each report reached the queue, as its transport says (Delivery.receivedAt). */
      ingest: (reports: ReadonlyArray<ProbeReport>, arrivalOf?: ArrivalOf) =>
        Effect.gen(function*() {
          // A fresh tally for each try: a transaction a conflict aborts runs again whole.
          const { componentIds, tally, transitioned } = yield* orUnavailable(sql.withTransaction(Effect.suspend(() => {
            const tally = new IngestTally()
            return Effect.map(storeAndDecide(reports, tally, arrivalOf), (decided) => ({ ...decided, tally }))
          })))
          tally.record()
          yield* noteRefused(tally.refused)
          // A component's status is all of the public state it changes: the public snapshot reads
          // the components again, not everything.
          // Of the components the batch may move, those whose status their monitors would move,
          // read after the commit with one statement. A batch that moves nothing (the steady
          // state) reads and writes nothing here, and does not invalidate the public snapshot.
          yield* Effect.forEach(yield* statuses.outOfLineWithMonitors(componentIds), followMonitors, { discard: true })
          if (transitioned.length > 0) {
            // A monitor's state is no public state (its component is): the dashboard's live events
            // hear of it, on every instance, and the public snapshot stays as it is.
            yield* changes.announce({ monitors: true })
            // After the components moved: an incident's severity and title follow the component's
            // new status. The results are stored whatever happens here; a failed pass is taken up
            // by the IncidentAutomationClock.
            yield* automation.advance(transitioned).pipe(
              Effect.catchCause((cause) => Effect.logWarning("Automatic incidents: pass failed after ingest", cause))
            )
          }
        }).pipe(Effect.withSpan("ResultIngest.ingest", {
          attributes: { reports: reports.length },
          // With tracing on, the batch links to each check's span: a check's trace shows where it was stored.
          links: tracing ? linksTo(reports.map((report) => isMissed(report) ? undefined : report.traceparent)) : []
        }))
    } as const
  })
}) {
  /** Without its repositories and services: the unit tests of its rules give their own. */
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide([
      CheckResultsRepo.layer,
      MonitorStateRepo.layer,
      ComponentStatuses.layer,
      StateChanges.layer,
      ProbeRegistry.layer,
      IncidentAutomation.layer,
      AuditTrail.layer
    ])
  )
}
