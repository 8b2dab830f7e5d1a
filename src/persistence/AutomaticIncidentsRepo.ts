/**
 * What the automatic incidents' service (services/monitoring/IncidentAutomation) reads and keeps:
 * each monitor with its open automatic incident, what its regions last saw, what an opening
 * incident is made of, and the automation's own columns of the incident (`monitor_up_since`,
 * `monitor_noted_at`, `monitor_relapses`, `monitor_down_since`). The rules stay in the service;
 * the statements run in its transaction when it runs them in one (StateChanges.commit).
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Statement } from "effect/sql"

import { IncidentPolicy } from "../domain/Monitor.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** A monitor with its open automatic incident, as one query reads it. */
export class AutomationRow extends Schema.Class<AutomationRow>("AutomationRow")({
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

export class FindingRow extends Schema.Class<FindingRow>("FindingRow")({
  region: Schema.String,
  lastScheduledAt: Schema.Date,
  lastOk: Schema.Boolean,
  lastStatusCode: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String)
}) {}

export class OpeningRow extends Schema.Class<OpeningRow>("OpeningRow")({
  componentName: Schema.String,
  componentStatus: Schema.String,
  templateTitle: Schema.NullOr(Schema.String),
  templateMessage: Schema.NullOr(Schema.String),
  templateSeverity: Schema.NullOr(Schema.Literals(["none", "minor", "major", "critical"]))
}) {}

export class AutomaticIncidentsRepo extends Context.Service<AutomaticIncidentsRepo>()("AutomaticIncidentsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
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

    return {
      /** The monitor and its open automatic incident, if the monitor exists. */
      monitor: (monitorId: string) => select(sql`m.id = ${monitorId}`),

      /** These monitors (each once) with their open automatic incident. */
      monitors: (monitorIds: ReadonlyArray<string>) => select(sql`m.id = any(${[...new Set(monitorIds)]}::text[])`),

      /** Every monitor that may need a step: down with a policy, or with an open automatic incident. */
      mayNeedStep: select(sql`m.id in (
          select id from monitors where state = 'down' and incident_policy <> 'off' and not paused
          union select monitor_id from incidents where source = 'monitor' and status <> 'resolved'
        )`),

      /** Locks the monitor's row until the caller's transaction ends (a statement of its own: IncidentAutomation says why). */
      lockMonitor: (monitorId: string) => orUnavailable(sql`select from monitors where id = ${monitorId} for update`),

      /** What each of the monitor's regions last saw. */
      regionFindings: (monitorId: string) =>
        findings.all(sql`
          select region, last_scheduled_at, last_ok, last_status_code, last_error
          from monitor_region_state where monitor_id = ${monitorId} order by region`),

      /** What an incident opened for the monitor's component is made of: the component, its template if any. */
      opening: (componentId: string, templateId: string | null) =>
        Effect.map(
          openings.all(sql`
            select c.name as component_name, c.status as component_status, t.title as template_title,
                   t.message as template_message, t.severity as template_severity
            from components c left join incident_templates t on t.id = ${templateId}
            where c.id = ${componentId}`),
          (found): OpeningRow | undefined => found[0]
        ),

      setUpSince: (incidentId: string, upSince: Date) =>
        orUnavailable(sql`update incidents set monitor_up_since = ${upSince} where id = ${incidentId}`),

      /** The automation added an update at `at` (the quiet time of later relapses counts from it). */
      setNotedAt: (incidentId: string, at: Date) =>
        orUnavailable(sql`update incidents set monitor_noted_at = ${at} where id = ${incidentId}`),

      /** The monitor is down again: a relapse told, of the outage since `downSince`. */
      setRelapse: (incidentId: string, downSince: Date | null) =>
        orUnavailable(sql`
          update incidents set monitor_up_since = null, monitor_relapses = monitor_relapses + 1,
            monitor_down_since = coalesce(${downSince}, monitor_down_since)
          where id = ${incidentId}`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
