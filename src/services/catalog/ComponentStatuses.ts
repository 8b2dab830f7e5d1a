/**
 * The one writer of a component's status. Four actors move it: an operator (the API), the
 * monitors (ingest; a monitor paused, moved or deleted), an incident (its `componentStatuses`,
 * and `restoreComponents` at its resolution) and a maintenance window (its start and its end).
 * Every move runs in the caller's transaction, under the component's lock (taken in id order by
 * every writer of several), and appends `component.status_changed` to the outbox when the status
 * changed. Who may move what, and what giving a status back means, is decided here only
 * (docs/status-model.md):
 * - monitors move a status they set themselves, or an operational one; never maintenance, never
 *   one an operator set by hand since (`monitorsMayMove`);
 * - an incident that set a component's status holds it while it is open; resolving another one
 *   gives it nothing back;
 * - a window remembers what a component showed and who had set it, and gives it back at its end
 *   in their name, unless an operator changed it meanwhile or another window still covers it.
 */
import { Context, Effect, Layer, Option } from "effect"

import type { FieldChange } from "../../domain/Audit.js"
import type { ComponentId, ComponentStatus, StatusSetBy } from "../../domain/Component.js"
import { BadRequest, orNotFound } from "../../domain/Errors.js"
import type { ComponentStatuses as IncidentComponentStatuses, IncidentId } from "../../domain/Incident.js"
import type { MaintenanceId } from "../../domain/Maintenance.js"
import { statusFromMonitors } from "../../domain/Quorum.js"
import { inLockOrder } from "../../persistence/ComponentRefs.js"
import { ComponentStatusRepo, type StatusSourceRow } from "../../persistence/ComponentStatusRepo.js"
import { MaintenanceRepo } from "../../persistence/MaintenanceRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"

/**
 * Monitors move a status they set themselves, or an operational one; never one an operator set
 * by hand since, and never maintenance.
 */
export const monitorsMayMove = (component: Pick<StatusSourceRow, "status" | "statusSetBy">) =>
  component.status !== "maintenance" && (component.statusSetBy === "monitors" || component.status === "operational")

/** A status a change moved, as its audit entry lists it. */
export interface StatusMove {
  readonly id: ComponentId
  readonly name: string
  readonly before: ComponentStatus
  readonly after: ComponentStatus
}

/** The moves of the change being made, when it collects them (`collectingMoves`). */
const Moves = Context.Reference<Array<StatusMove> | undefined>("ComponentStatuses/moves", {
  defaultValue: () => undefined
})

/**
 * Runs `change` and returns, with its result, the statuses it moved: a component moved more than
 * once from its first status to its last, and left out when that is where it started. Call it
 * inside the change's transaction, so that a try run again collects afresh.
 */
export const collectingMoves = <A, E, R>(change: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const moves: Array<StatusMove> = []
    return Effect.map(Effect.provideService(change, Moves, moves), (result) => {
      const net = new Map<ComponentId, StatusMove>()
      for (const move of moves) {
        const first = net.get(move.id)
        net.set(move.id, first === undefined ? move : { ...move, before: first.before })
      }
      return [result, [...net.values()].filter((move) => move.before !== move.after)] as const
    })
  })

/** The `componentStatuses` field of an audit entry: each moved component's status before and after; none without moves. */
export const statusChanges = (moves: ReadonlyArray<StatusMove>): Record<string, FieldChange> =>
  moves.length === 0 ? {} : {
    componentStatuses: {
      before: moves.map(({ before, id, name }) => ({ id, name, status: before })),
      after: moves.map(({ after, id, name }) => ({ id, name, status: after }))
    }
  }

export class ComponentStatuses extends Context.Service<ComponentStatuses>()("ComponentStatuses", {
  make: Effect.gen(function*() {
    const repo = yield* ComponentStatusRepo
    const maintenance = yield* MaintenanceRepo
    const outbox = yield* OutboxRepo

    /** Locks each component in id order; `before` is none for an unknown id. */
    const lockEach = <A, E, R>(
      ids: ReadonlyArray<ComponentId>,
      f: (id: ComponentId, before: Option.Option<StatusSourceRow>) => Effect.Effect<A, E, R>
    ) => Effect.forEach(inLockOrder(ids), (id) => Effect.flatMap(repo.lock(id), (before) => f(id, before)))

    /** Sets the status of a locked component, with `component.status_changed` when it changed. */
    const move = (before: StatusSourceRow, status: ComponentStatus, setBy: StatusSetBy) =>
      Effect.gen(function*() {
        const after = yield* repo.set(before.id, status, setBy)
        if (Option.isSome(after) && after.value.status !== before.status) {
          const moves = yield* Moves
          moves?.push({ id: before.id, name: after.value.name, before: before.status, after: after.value.status })
          yield* outbox.append(
            "component.status_changed",
            { id: after.value.id, name: after.value.name, previousStatus: before.status, status: after.value.status },
            [after.value.id]
          )
        }
        return after
      })

    /**
     * Moves one component's status to what its monitors call for, decided again under its lock.
     * A component left without monitors goes back to operational if they had set its status:
     * nothing observes it any more.
     */
    const followMonitors = (id: ComponentId) =>
      Effect.gen(function*() {
        const locked = yield* repo.lock(id)
        if (Option.isNone(locked) || !monitorsMayMove(locked.value)) return
        const wanted = statusFromMonitors(yield* repo.monitorStates(id))
        if (locked.value.status !== wanted) yield* move(locked.value, wanted, "monitors")
      })

    return {
      /** An operator sets the status (the API): it is theirs from now on, until they set it operational. */
      setByOperator: (id: ComponentId, status: ComponentStatus) =>
        Effect.flatMap(
          repo.lock(id).pipe(orNotFound("Component", id)),
          (before) => move(before, status, "operator").pipe(orNotFound("Component", id))
        ),

      followMonitors,

      /**
       * Of `ids`, the components whose status their monitors would move, read with one statement
       * (after the commit that changed their monitors: another instance may be moving a sibling
       * monitor at the same time). Components without monitors are left out.
       */
      outOfLineWithMonitors: (ids: ReadonlyArray<ComponentId>) =>
        ids.length === 0 ?
          Effect.succeed([]) :
          Effect.map(repo.withMonitorStates(ids), (rows) =>
            rows.filter((row) =>
              row.monitorStates.length > 0 && statusFromMonitors(row.monitorStates) !== row.status &&
              monitorsMayMove(row)
            ).map((row) =>
              row.id
            )),

      /**
       * Puts a starting window's components into maintenance, remembering what they showed and
       * who had set it (entering maintenance makes the status the operator's; the end hands it back).
       */
      enterMaintenance: (window: MaintenanceId, ids: ReadonlyArray<ComponentId>) =>
        lockEach(ids, (id, before) =>
          Effect.gen(function*() {
            if (Option.isNone(before)) return
            yield* maintenance.rememberPrevious(window, id)
            if (before.value.status !== "maintenance") yield* move(before.value, "maintenance", "operator")
          })).pipe(Effect.asVoid),

      /**
       * Gives an ending window's components back the status they had, in the name of whoever had
       * set it (so the monitors can clear an outage they found), unless an operator changed it
       * during the window or another running window still covers them.
       */
      leaveMaintenance: (window: MaintenanceId, ids: ReadonlyArray<ComponentId>) =>
        lockEach(ids, (id, before) =>
          Effect.gen(function*() {
            const info = yield* maintenance.restoreInfo(window, id)
            if (Option.isNone(before) || info === undefined || info.stillCovered) return
            const previous = info.previousStatus
            if (before.value.status !== "maintenance" || previous === null || previous === "maintenance") return
            yield* move(before.value, previous, info.previousSetBy)
          })).pipe(Effect.asVoid),

      /**
       * Sets the statuses an incident's change names, as an operator's (the monitors leave them
       * alone until operational again). An unknown component is a 400 naming it; the ids are
       * returned for the incident to name them, and hold them (`holdForIncident`).
       */
      setForIncident: (statuses: IncidentComponentStatuses) =>
        Effect.gen(function*() {
          const ids = Object.keys(statuses) as Array<ComponentId>
          const missing: Array<ComponentId> = []
          yield* lockEach(ids, (id, before) =>
            Option.isNone(before)
              ? Effect.sync(() => missing.push(id))
              : before.value.status === statuses[id]
              ? Effect.void
              : move(before.value, statuses[id]!, "operator"))
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

      /** `incident` set these components' statuses: it holds them while it is open and names them. */
      holdForIncident: (incident: IncidentId, ids: ReadonlyArray<ComponentId>) => repo.holdForIncident(incident, ids),

      /**
       * Gives each of a resolved `incident`'s components back its normal status: what its monitors
       * call for (in their name, so they keep moving it), or operational when it has none. A
       * component a window in progress covers goes back to maintenance, and the window's end hands
       * it back. A component another open incident holds keeps the status that incident set: its
       * own resolution gives it back.
       */
      restoreAfterIncident: (incident: IncidentId, ids: ReadonlyArray<ComponentId>) =>
        lockEach(ids, (id, before) =>
          Effect.gen(function*() {
            if (Option.isNone(before) || before.value.status === "maintenance") return
            if (yield* repo.heldByAnotherIncident(incident, id)) return
            const restore = (status: ComponentStatus, setBy: StatusSetBy) =>
              before.value.status === status && setBy === "operator" ? Effect.void : move(before.value, status, setBy)
            // A window in progress gets its component back: its end then restores what it found.
            if (yield* repo.inMaintenance(id)) return yield* restore("maintenance", "operator")
            const monitors = yield* repo.monitorStates(id)
            if (monitors.length === 0) return yield* restore("operational", "operator")
            yield* restore(statusFromMonitors(monitors), "monitors")
          })).pipe(Effect.asVoid)
    } as const
  })
}) {
  /** Without its repositories: the unit tests of its rules give their own. */
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide([ComponentStatusRepo.layer, MaintenanceRepo.layer, OutboxRepo.layer])
  )
}
