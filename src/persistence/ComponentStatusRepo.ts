/**
 * The SQL of a component's status, for its one writer (services/catalog/ComponentStatuses): the
 * status and who set it, under the component's lock; its monitors' states; whether a maintenance
 * window in progress or another open incident holds it.
 */
import { Context, Effect, Layer, Schema } from "effect"

import { Component, ComponentId, ComponentStatus, type StatusSetBy } from "../domain/Component.js"
import type { IncidentId } from "../domain/Incident.js"
import type { MonitorState } from "../domain/Quorum.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

const StoredState = Schema.Literals(["unknown", "up", "degraded", "down"])

/** A component's status and who set it: what a move decides on, read under the component's lock. */
export class StatusSourceRow extends Schema.Class<StatusSourceRow>("StatusSourceRow")({
  id: ComponentId,
  name: Schema.String,
  status: ComponentStatus,
  statusSetBy: Schema.Literals(["operator", "monitors"])
}) {}

class ComponentStatesRow extends Schema.Class<ComponentStatesRow>("ComponentStatesRow")({
  ...StatusSourceRow.fields,
  monitorStates: Schema.Array(StoredState)
}) {}

class StateRow extends Schema.Class<StateRow>("StateRow")({ state: StoredState }) {}

export class ComponentStatusRepo extends Context.Service<ComponentStatusRepo>()("ComponentStatusRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const components = rowsOf(Component)
    const statusSources = rowsOf(StatusSourceRow)
    const componentStates = rowsOf(ComponentStatesRow)
    const states = rowsOf(StateRow)

    return {
      /** A component's status and who set it, locked for the rest of the transaction. */
      lock: (id: ComponentId) =>
        statusSources.first(sql`select id, name, status, status_set_by from components where id = ${id} for update`),

      /**
       * Sets a status in the name of `setBy`. The trigger of migration 0010 takes it from the
       * transaction's `status_page.actor`, set in the same statement (so it holds outside a
       * transaction too) and cleared after it, so that later writes of the transaction are not
       * the monitors' by mistake.
       */
      set: (id: ComponentId, status: ComponentStatus, setBy: StatusSetBy) =>
        components.first(sql`
          with actor as materialized (select set_config('status_page.actor', ${setBy}, true))
          update components set status = ${status}, updated_at = now() from actor where id = ${id}
          returning components.*`).pipe(
          Effect.tap(orUnavailable(sql`select set_config('status_page.actor', '', true)`))
        ),

      /** The states of a component's monitors. */
      monitorStates: (id: ComponentId) =>
        Effect.map(
          states.all(sql`select state from monitors where component_id = ${id}`),
          (rows): ReadonlyArray<MonitorState> => rows.map((row) => row.state)
        ),

      /** Each component's status, who set it and its monitors' states, in one query for a batch. */
      withMonitorStates: (ids: ReadonlyArray<ComponentId>) =>
        componentStates.all(sql`
          select c.id, c.name, c.status, c.status_set_by,
                 coalesce(array_agg(m.state) filter (where m.id is not null), '{}') as monitor_states
          from components c left join monitors m on m.component_id = c.id
          where c.id = any(${[...ids]}::text[])
          group by c.id`),

      /** Whether a maintenance window in progress covers the component. */
      inMaintenance: (id: ComponentId) =>
        orUnavailable(sql`
          select from maintenance_components mc join maintenance_windows w on w.id = mc.maintenance_id
          where mc.component_id = ${id} and w.status = 'in_progress' limit 1`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),

      /** Whether an open incident other than `incident` names the component and set its status. */
      heldByAnotherIncident: (incident: IncidentId, id: ComponentId) =>
        orUnavailable(sql`
          select from incident_impacts h
          join incident_components ic on ic.incident_id = h.incident_id and ic.component_id = h.component_id
          join incidents i on i.id = h.incident_id
          where h.component_id = ${id} and h.incident_id <> ${incident} and i.status <> 'resolved'
          limit 1`).pipe(Effect.map((rows) => rows.length > 0)),

      /** `incident` set these components' statuses: it holds them while it is open and names them. */
      holdForIncident: (incident: IncidentId, ids: ReadonlyArray<ComponentId>) =>
        ids.length === 0 ? Effect.void : orUnavailable(sql`
          insert into incident_impacts (incident_id, component_id)
          select ${incident}, unnest(${[...ids]}::text[]) on conflict do nothing`).pipe(Effect.asVoid)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
