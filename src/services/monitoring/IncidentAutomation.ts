/**
 * Incidents opened by monitors (docs/status-model.md, "Automatic incidents"). A pass looks at a
 * monitor and its open automatic incident and takes the next step (`nextStep`): open, say it
 * recovered, say it is down again, resolve. Ingest runs a pass for the monitors whose state it
 * has just changed; the IncidentAutomationClock runs one over every monitor that may need a step,
 * for the waits (`resolveAfterSeconds`) and for what a crash between ingest's commit and its pass
 * left undone. Each step runs under the monitor's row lock and is decided again there, so passes
 * of several instances take turns and a step is never taken twice; the unique index of migration
 * 0026 keeps a second open incident out whatever happens. The rules are here (and in
 * domain/AutomaticIncident); the statements are AutomaticIncidentsRepo's.
 */
import { Clock, Context, Effect, Layer } from "effect"

import { CurrentAuditScope, systemScope } from "../../domain/Audit.js"
import {
  type AutomationStep,
  type AutomationView,
  defaultSeverity,
  defaultTitle,
  downAgainMessage,
  nextStep,
  openingMessage,
  recoveredMessage,
  type RegionFinding,
  resolvedMessage
} from "../../domain/AutomaticIncident.js"
import type { ComponentId } from "../../domain/Component.js"
import type { IncidentId, IncidentSeverity } from "../../domain/Incident.js"
import { reportingRegions } from "../../domain/Quorum.js"
import { AutomaticIncidentsRepo, type AutomationRow } from "../../persistence/AutomaticIncidentsRepo.js"
import { Incidents } from "../catalog/Incidents.js"
import { StateChanges, touch } from "../StateChanges.js"
import { ProbeRegistry } from "./ProbeRegistry.js"

const viewOf = (row: AutomationRow): AutomationView => ({
  state: row.state,
  paused: row.paused,
  policy: row.incidentPolicy,
  resolveAfterSeconds: row.resolveAfterSeconds,
  stateChangedAt: row.stateChangedAt?.getTime() ?? null,
  incident: row.incidentId === null || row.automation === null
    ? null
    : {
      automation: row.automation,
      upSince: row.monitorUpSince?.getTime() ?? null,
      notedAt: row.monitorNotedAt?.getTime() ?? 0,
      relapses: row.monitorRelapses ?? 0
    },
  covered: row.covered
})

/**
 * Who the automatic incidents' steps are by, in the audit log (Incidents.automatic records them:
 * `incidents.openAutomatically`, `incidents.updateAutomatically`, `incidents.resolveAutomatically`).
 */
const automationScope = systemScope("incident-automation")

export class IncidentAutomation extends Context.Service<IncidentAutomation>()("IncidentAutomation", {
  make: Effect.gen(function*() {
    const repo = yield* AutomaticIncidentsRepo
    const incidents = yield* Incidents
    const changes = yield* StateChanges
    const probes = yield* ProbeRegistry

    /** What the monitor's regions last saw, among those that count now. */
    const regionFindings = (row: AutomationRow) =>
      Effect.gen(function*() {
        const seen = yield* repo.regionFindings(row.id)
        const counted = reportingRegions(
          row,
          seen.map((finding) => ({ ...finding, lastScheduledAt: finding.lastScheduledAt.getTime() })),
          yield* Clock.currentTimeMillis,
          yield* probes.offlineRegions()
        )
        return counted.map((finding): RegionFinding => ({
          region: finding.region,
          ok: finding.lastOk,
          statusCode: finding.lastStatusCode,
          error: finding.lastError
        }))
      })

    /** The automation adds an update now (the quiet time of later relapses counts from it). */
    const noted = (incidentId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => repo.setNotedAt(incidentId, new Date(now)))

    /** Takes one step for the locked monitor `row`, in the caller's transaction. */
    const take = (step: AutomationStep, row: AutomationRow) =>
      Effect.gen(function*() {
        const incidentId = row.incidentId as IncidentId
        // Of the public state, a step changes the monitor's incident only (an incident it opens
        // says so itself: Incidents.automatic.open); components' statuses are ingest's.
        yield* touch(row.incidentId === null ? {} : { incidents: [row.incidentId] })
        switch (step) {
          case "open": {
            const opening = yield* repo.opening(row.componentId, row.incidentTemplateId)
            if (opening === undefined) return
            yield* incidents.automatic.open({
              monitorId: row.id,
              downSince: row.stateChangedAt ?? new Date(yield* Clock.currentTimeMillis),
              title: opening.templateTitle ?? defaultTitle(opening.componentName, opening.componentStatus),
              message: openingMessage(opening.templateMessage, yield* regionFindings(row)),
              severity: opening.templateSeverity ?? (defaultSeverity(opening.componentStatus) as IncidentSeverity),
              componentId: row.componentId as ComponentId,
              published: row.incidentPolicy === "publish"
            })
            return
          }
          case "recovered":
            yield* repo.setUpSince(incidentId, row.stateChangedAt ?? new Date(yield* Clock.currentTimeMillis))
            yield* noted(incidentId)
            yield* incidents.automatic.note(incidentId, recoveredMessage, "monitoring")
            // No wait: resolved in the same step.
            if (row.resolveAfterSeconds === 0) yield* incidents.automatic.resolve(incidentId, resolvedMessage(0))
            return
          case "upAgain":
            if (row.stateChangedAt !== null) yield* repo.setUpSince(incidentId, row.stateChangedAt)
            return
          case "downAgain":
            yield* repo.setRelapse(incidentId, row.stateChangedAt)
            yield* noted(incidentId)
            yield* incidents.automatic.note(incidentId, downAgainMessage(yield* regionFindings(row)), "investigating")
            return
          case "resolve":
            yield* incidents.automatic.resolve(incidentId, resolvedMessage(row.resolveAfterSeconds))
            return
          case "none":
            return
        }
      })

    /**
     * Takes the monitor's next step in a transaction, decided again under the monitor's lock.
     * The lock is taken by a statement of its own: a statement that waits for a lock still
     * returns the other rows (the incident) as they were when it started.
     */
    const advance = (monitorId: string) =>
      changes.commit(Effect.gen(function*() {
        yield* repo.lockMonitor(monitorId)
        const [row] = yield* repo.monitor(monitorId)
        if (row !== undefined) yield* take(nextStep(viewOf(row), yield* Clock.currentTimeMillis), row)
      })).pipe(Effect.provideService(CurrentAuditScope, automationScope))

    /**
     * Advances the monitors `select` reads that have a step to take, read without a lock first:
     * a monitor with nothing to do costs no transaction (a commit would invalidate the public
     * snapshot for nothing). One monitor's failure is logged and the others go on.
     */
    const pass = <E>(select: Effect.Effect<ReadonlyArray<AutomationRow>, E>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const candidates = yield* select
        yield* Effect.forEach(
          candidates.filter((row) => nextStep(viewOf(row), now) !== "none"),
          (row) =>
            advance(row.id).pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning("Automatic incidents: a monitor's step failed; retried on the next pass", cause)
                  .pipe(Effect.annotateLogs({ monitorId: row.id }))
              )
            ),
          { discard: true }
        )
      })

    return {
      /** Runs a pass for these monitors (ingest: those whose state just changed). */
      advance: (monitorIds: ReadonlyArray<string>) =>
        pass(repo.monitors(monitorIds)).pipe(
          Effect.withSpan("IncidentAutomation.advance", { attributes: { monitors: monitorIds.length } })
        ),

      /** Runs a pass over every monitor that may need a step: down with a policy, or with an open automatic incident. */
      advanceAll: pass(repo.mayNeedStep).pipe(Effect.withSpan("IncidentAutomation.advanceAll"))
    } as const
  })
}) {
  /** Without its repository and services: the unit tests of its rules give their own. */
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide([AutomaticIncidentsRepo.layer, Incidents.layer, StateChanges.layer, ProbeRegistry.layer])
  )
}
