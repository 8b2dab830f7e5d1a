/**
 * Incidents opened by monitors (docs/status-model.md, "Automatic incidents"). A pass looks at a
 * monitor and its open automatic incident and takes the next step (`nextStep`): open, say it
 * recovered, say it is down again, resolve. Ingest runs a pass for the monitors whose state it
 * has just changed; the IncidentAutomationClock runs one over every monitor that may need a step,
 * for the waits (`resolveAfterSeconds`) and for what a crash between ingest's commit and its pass
 * left undone. Each step runs under the monitor's row lock and is decided again there, so passes
 * of several instances take turns and a step is never taken twice; the unique index of migration
 * 0026 keeps a second open incident out whatever happens.
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { Statement } from "effect/sql"

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
import { IncidentPolicy } from "../../domain/Monitor.js"
import { reportingRegions } from "../../domain/Quorum.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { rowsOf } from "../../persistence/Rows.js"
import { Incidents } from "../catalog/Incidents.js"
import { StateChanges, touch } from "../StateChanges.js"
import { ProbeRegistry } from "./ProbeRegistry.js"

/** A monitor with its open automatic incident, as one query reads it. */
class AutomationRow extends Schema.Class<AutomationRow>("AutomationRow")({
  id: Schema.String,
  componentId: Schema.String,
  state: Schema.Literals(["unknown", "up", "degraded", "down"]),
  stateChangedAt: Schema.NullOr(Schema.Date),
  paused: Schema.Boolean,
  intervalSeconds: Schema.Number,
  regions: Schema.NullOr(Schema.Array(Schema.String)),
  incidentPolicy: IncidentPolicy,
  incidentTemplateId: Schema.NullOr(Schema.String),
  resolveAfterSeconds: Schema.Number,
  incidentId: Schema.NullOr(Schema.String),
  automation: Schema.NullOr(Schema.Literals(["active", "handed_over"])),
  monitorUpSince: Schema.NullOr(Schema.Date),
  monitorNotedAt: Schema.NullOr(Schema.Date),
  monitorRelapses: Schema.NullOr(Schema.Number),
  covered: Schema.Boolean
}) {}

class FindingRow extends Schema.Class<FindingRow>("FindingRow")({
  region: Schema.String,
  lastScheduledAt: Schema.Date,
  lastOk: Schema.Boolean,
  lastStatusCode: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String)
}) {}

class OpeningRow extends Schema.Class<OpeningRow>("OpeningRow")({
  componentName: Schema.String,
  componentStatus: Schema.String,
  templateTitle: Schema.NullOr(Schema.String),
  templateMessage: Schema.NullOr(Schema.String),
  templateSeverity: Schema.NullOr(Schema.Literals(["none", "minor", "major", "critical"]))
}) {}

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

export class IncidentAutomation extends Context.Service<IncidentAutomation>()("IncidentAutomation", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const incidents = yield* Incidents
    const changes = yield* StateChanges
    const probes = yield* ProbeRegistry
    const rows = rowsOf(AutomationRow)
    const findings = rowsOf(FindingRow)
    const openings = rowsOf(OpeningRow)

    const select = (where: Statement.Fragment) =>
      rows.all(sql`
        select m.id, m.component_id, m.state, m.state_changed_at, m.paused, m.interval_seconds, m.regions,
               m.incident_policy, m.incident_template_id, m.resolve_after_seconds,
               i.id as incident_id, i.automation, i.monitor_up_since, i.monitor_noted_at,
               i.monitor_relapses,
               exists (select from incidents j where j.monitor_id = m.id and j.source = 'monitor'
                       and j.monitor_down_since >= m.state_changed_at) as covered
        from monitors m
          left join incidents i on i.monitor_id = m.id and i.source = 'monitor' and i.status <> 'resolved'
        where ${where}`)

    /** What the monitor's regions last saw, among those that count now. */
    const regionFindings = (row: AutomationRow) =>
      Effect.gen(function*() {
        const seen = yield* findings.all(sql`
          select region, last_scheduled_at, last_ok, last_status_code, last_error
          from monitor_region_state where monitor_id = ${row.id} order by region`)
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

    const setUpSince = (incidentId: string, upSince: Date) =>
      orUnavailable(sql`update incidents set monitor_up_since = ${upSince} where id = ${incidentId}`)

    /** The automation adds an update now (the quiet time of later relapses counts from it). */
    const noted = (incidentId: string) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => orUnavailable(sql`update incidents set monitor_noted_at = ${new Date(now)} where id = ${incidentId}`)
      )

    /** The monitor is down again: a relapse told, of the outage since `downSince`. */
    const setRelapse = (incidentId: string, downSince: Date | null) =>
      orUnavailable(sql`
        update incidents set monitor_up_since = null, monitor_relapses = monitor_relapses + 1,
          monitor_down_since = coalesce(${downSince}, monitor_down_since)
        where id = ${incidentId}`)

    /** Takes one step for the locked monitor `row`, in the caller's transaction. */
    const take = (step: AutomationStep, row: AutomationRow) =>
      Effect.gen(function*() {
        const incidentId = row.incidentId as IncidentId
        // Of the public state, a step changes the monitor's incident only (an incident it opens
        // says so itself: Incidents.automatic.open); components' statuses are ingest's.
        yield* touch(row.incidentId === null ? {} : { incidents: [row.incidentId] })
        switch (step) {
          case "open": {
            const [opening] = yield* openings.all(sql`
              select c.name as component_name, c.status as component_status, t.title as template_title,
                     t.message as template_message, t.severity as template_severity
              from components c left join incident_templates t on t.id = ${row.incidentTemplateId}
              where c.id = ${row.componentId}`)
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
            yield* setUpSince(incidentId, row.stateChangedAt ?? new Date(yield* Clock.currentTimeMillis))
            yield* noted(incidentId)
            yield* incidents.automatic.note(incidentId, recoveredMessage, "monitoring")
            // No wait: resolved in the same step.
            if (row.resolveAfterSeconds === 0) yield* incidents.automatic.resolve(incidentId, resolvedMessage(0))
            return
          case "upAgain":
            if (row.stateChangedAt !== null) yield* setUpSince(incidentId, row.stateChangedAt)
            return
          case "downAgain":
            yield* setRelapse(incidentId, row.stateChangedAt)
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
        yield* orUnavailable(sql`select from monitors where id = ${monitorId} for update`)
        const [row] = yield* select(sql`m.id = ${monitorId}`)
        if (row !== undefined) yield* take(nextStep(viewOf(row), yield* Clock.currentTimeMillis), row)
      }))

    /**
     * Advances the monitors `where` selects that have a step to take, read without a lock first:
     * a monitor with nothing to do costs no transaction (a commit would invalidate the public
     * snapshot for nothing). One monitor's failure is logged and the others go on.
     */
    const pass = (where: Statement.Fragment) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const candidates = yield* select(where)
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
        pass(sql`m.id = any(${[...new Set(monitorIds)]}::text[])`).pipe(
          Effect.withSpan("IncidentAutomation.advance", { attributes: { monitors: monitorIds.length } })
        ),

      /** Runs a pass over every monitor that may need a step: down with a policy, or with an open automatic incident. */
      advanceAll: pass(sql`m.id in (
          select id from monitors where state = 'down' and incident_policy <> 'off' and not paused
          union select monitor_id from incidents where source = 'monitor' and status <> 'resolved'
        )`).pipe(Effect.withSpan("IncidentAutomation.advanceAll"))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([Incidents.layer, StateChanges.layer, ProbeRegistry.layer])
  )
}
