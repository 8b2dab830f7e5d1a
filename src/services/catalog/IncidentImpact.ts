/**
 * The component statuses an incident sets with its change (`componentStatuses`), and gives back
 * when it is resolved with `restoreComponents`, inside the incident's transaction: one
 * `component.status_changed` per component whose status changed. An incident holds the components
 * whose status it set while it is open: resolving another one gives them nothing back.
 */
import { Context, Effect, Layer, Option } from "effect"

import type { ComponentId, ComponentStatus } from "../../domain/Component.js"
import { BadRequest } from "../../domain/Errors.js"
import type { ComponentStatuses, IncidentId } from "../../domain/Incident.js"
import { statusFromMonitors } from "../../domain/Quorum.js"
import { ChecksRepo } from "../../persistence/ChecksRepo.js"
import { inLockOrder } from "../../persistence/ComponentRefs.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { recordStatusChange } from "./ComponentEvents.js"

export class IncidentImpact extends Context.Service<IncidentImpact>()("IncidentImpact", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const components = yield* ComponentsRepo
    const checks = yield* ChecksRepo
    const outbox = yield* OutboxRepo

    type Locked = Effect.Success<ReturnType<typeof components.findByIdForUpdate>>

    /** Locks components in id order (the order every writer of several takes); `before` is none for an unknown id. */
    const lockEach = <A, E, R>(
      ids: ReadonlyArray<ComponentId>,
      f: (id: ComponentId, before: Locked) => Effect.Effect<A, E, R>
    ) =>
      Effect.forEach(
        inLockOrder(ids),
        (id) => Effect.flatMap(components.findByIdForUpdate(id), (before) => f(id, before))
      )

    /** Whether a maintenance window in progress covers the component. */
    const inMaintenance = (id: ComponentId) =>
      orUnavailable(sql`
        select from maintenance_components mc join maintenance_windows w on w.id = mc.maintenance_id
        where mc.component_id = ${id} and w.status = 'in_progress' limit 1`).pipe(Effect.map((rows) => rows.length > 0))

    const setStatus = (
      before: Locked,
      status: ComponentStatus,
      setBy: "operator" | "monitors"
    ) =>
      Effect.gen(function*() {
        if (Option.isNone(before)) return
        if (before.value.status === status && setBy === "operator") return
        const after = yield* components.setStatus(before.value.id, status, setBy)
        if (Option.isSome(after)) yield* recordStatusChange(outbox, before.value, after.value)
      })

    /** Whether an open incident other than `incident` names the component and set its status. */
    const heldByAnother = (incident: IncidentId, id: ComponentId) =>
      orUnavailable(sql`
        select from incident_impacts h
        join incident_components ic on ic.incident_id = h.incident_id and ic.component_id = h.component_id
        join incidents i on i.id = h.incident_id
        where h.component_id = ${id} and h.incident_id <> ${incident} and i.status <> 'resolved'
        limit 1`).pipe(Effect.map((rows) => rows.length > 0))

    return {
      /**
       * Sets the statuses, as an operator's (the monitors leave them alone until operational
       * again, docs/status-model.md). An unknown component is a 400 naming it; the ids are
       * returned for the incident to name them, and hold them.
       */
      set: (statuses: ComponentStatuses) =>
        Effect.gen(function*() {
          const ids = Object.keys(statuses) as Array<ComponentId>
          const missing: Array<ComponentId> = []
          yield* lockEach(ids, (id, before) =>
            Option.isNone(before)
              ? Effect.sync(() => missing.push(id))
              : setStatus(before, statuses[id]!, "operator"))
          if (missing.length > 0) {
            return yield* Effect.fail(
              new BadRequest({
                message: `Unknown components in componentStatuses: ${
                  missing.map((id) => JSON.stringify(id)).join(", ")
                }`,
                issues: missing.map((id) => ({ path: ["componentStatuses", id], message: "unknown component" }))
              })
            )
          }
          return ids
        }),

      /**
       * Gives each of `incident`'s components back its normal status: what its monitors call for
       * (in their name, so they keep moving it), or operational when it has none. A component a
       * window in progress covers goes back to maintenance, and the window's end hands it back.
       * A component another open incident holds keeps the status that incident set: its own
       * resolution gives it back. Checked under the component's lock, which setting takes too.
       */
      /** `incident` set these components' statuses: it holds them while it is open and names them. */
      hold: (incident: IncidentId, ids: ReadonlyArray<ComponentId>) =>
        ids.length === 0 ? Effect.void : orUnavailable(sql`
          insert into incident_impacts (incident_id, component_id)
          select ${incident}, unnest(${[...ids]}::text[]) on conflict do nothing`),

      restore: (incident: IncidentId, ids: ReadonlyArray<ComponentId>) =>
        lockEach(ids, (id, before) =>
          Effect.gen(function*() {
            if (Option.isNone(before) || before.value.status === "maintenance") return
            if (yield* heldByAnother(incident, id)) return
            // A window in progress gets its component back: its end then restores what it found.
            if (yield* inMaintenance(before.value.id)) return yield* setStatus(before, "maintenance", "operator")
            const monitors = yield* checks.componentMonitorStates(before.value.id)
            if (monitors.length === 0) return yield* setStatus(before, "operational", "operator")
            yield* setStatus(before, statusFromMonitors(monitors), "monitors")
          })).pipe(Effect.asVoid)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([ComponentsRepo.layer, ChecksRepo.layer, OutboxRepo.layer])
  )
}
