/**
 * Monitor configuration: defaults, the rules across fields (definitionIssues), and the
 * component each monitor belongs to. A monitor deleted, or moved to another component, takes
 * its downtime with it from that moment: its open down interval ends there (past downtime
 * stays) and the components it leaves and joins have their status decided again from their
 * monitors, as ingest decides it, in the same transaction.
 */
import { Clock, Effect, Option } from "effect"

import type { ComponentId } from "../../domain/Component.js"
import { BadRequest, NotFound, orNotFound } from "../../domain/Errors.js"
import type { CreateMonitor, MonitorDefinition, MonitorId, UpdateMonitor } from "../../domain/Monitor.js"
import { definitionIssues, monitorLimits, normalizeTarget } from "../../domain/Monitor.js"
import { ChecksRepo } from "../../persistence/ChecksRepo.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { MonitorsRepo } from "../../persistence/MonitorsRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { StateChanges } from "../StateChanges.js"
import { applyMonitorStatus } from "./ResultIngest.js"

/** Default time-out: 10 s, or half the interval when that is shorter. */
const defaultTimeout = (intervalSeconds: number) => Math.min(monitorLimits.timeoutMs.default, intervalSeconds * 500)

export class Monitors extends Effect.Service<Monitors>()("Monitors", {
  effect: Effect.gen(function*() {
    const repo = yield* MonitorsRepo
    const components = yield* ComponentsRepo
    const checks = yield* ChecksRepo
    const outbox = yield* OutboxRepo
    const stateChanges = yield* StateChanges

    const componentExists = (id: ComponentId) =>
      components.findById(id).pipe(
        Effect.flatMap(
          Option.match({ onNone: () => Effect.fail(NotFound.of("Component", id)), onSome: () => Effect.void })
        )
      )

    /** Checks the definition and brings its target to the stored form. */
    const validated = (definition: MonitorDefinition) =>
      Effect.gen(function*() {
        const issues = definitionIssues(definition)
        if (issues.length > 0) return yield* BadRequest.fromIssues(issues)
        const target = normalizeTarget(definition.type, definition.url)
        return { ...definition, url: "url" in target ? target.url : definition.url }
      })

    const get = (id: MonitorId) => repo.findById(id).pipe(orNotFound("Monitor", id))

    /**
     * Locks a monitor for a change of its component: the components first (its own and
     * `target`), then the monitor, the order a component's deletion takes, so neither waits for
     * the other. A monitor moved meanwhile has its new component locked too.
     */
    const lockPlacement = (id: MonitorId, target?: ComponentId) =>
      Effect.gen(function*() {
        for (;;) {
          const seen = yield* repo.placement(id)
          if (Option.isNone(seen)) return seen
          yield* repo.lockComponents(target === undefined ? [seen.value.componentId] : [seen.value.componentId, target])
          const locked = yield* repo.lockPlacement(id)
          if (Option.isNone(locked) || locked.value.componentId === seen.value.componentId) return locked
        }
      }).pipe(orNotFound("Monitor", id))

    /**
     * Replaces a monitor that names another component. Its open down interval ends on the old
     * component now; while it is still down, a new one opens on the new component from now, as
     * ingest records a monitor found down (ingest closes it when the monitor is up again).
     */
    const move = (id: MonitorId, definition: MonitorDefinition) =>
      stateChanges.commit(Effect.gen(function*() {
        const before = yield* lockPlacement(id, definition.componentId)
        const after = yield* repo.replace(id, definition).pipe(orNotFound("Monitor", id))
        if (before.componentId === definition.componentId) return after // moved there meanwhile
        const now = yield* Clock.currentTimeMillis
        yield* repo.endDowntime(id, now)
        if (before.state === "down") yield* repo.openDowntime(id, definition.componentId, now)
        for (const componentId of [before.componentId, definition.componentId].sort()) {
          yield* applyMonitorStatus(checks, outbox, componentId)
        }
        return after
      }))

    return {
      list: repo.findAll,
      get,

      create: (input: CreateMonitor) =>
        Effect.gen(function*() {
          const intervalSeconds = input.intervalSeconds ?? monitorLimits.intervalSeconds.default
          const definition = yield* validated({
            componentId: input.componentId,
            type: input.type,
            url: input.url,
            intervalSeconds,
            timeoutMs: input.timeoutMs ?? defaultTimeout(intervalSeconds),
            expectedStatusCode: input.expectedStatusCode ??
              (input.type === "http" ? monitorLimits.expectedStatusCode.default : null),
            failureThreshold: input.failureThreshold ?? monitorLimits.failureThreshold.default,
            regions: input.regions ?? null
          })
          yield* componentExists(definition.componentId)
          return yield* repo.insert(definition)
        }),

      /** A partial update; changing the type resets expectedStatusCode to the new type's default. */
      update: (id: MonitorId, changes: UpdateMonitor) =>
        Effect.gen(function*() {
          const current = yield* get(id)
          const type = changes.type ?? current.type
          const typeChanged = type !== current.type
          const definition = yield* validated({
            componentId: changes.componentId ?? current.componentId,
            type,
            url: changes.url ?? current.url,
            intervalSeconds: changes.intervalSeconds ?? current.intervalSeconds,
            timeoutMs: changes.timeoutMs ?? current.timeoutMs,
            expectedStatusCode: changes.expectedStatusCode !== undefined
              ? changes.expectedStatusCode
              : typeChanged
              ? (type === "http" ? monitorLimits.expectedStatusCode.default : null)
              : current.expectedStatusCode,
            failureThreshold: changes.failureThreshold ?? current.failureThreshold,
            regions: changes.regions !== undefined ? changes.regions : current.regions
          })
          if (definition.componentId === current.componentId) {
            return yield* repo.replace(id, definition).pipe(orNotFound("Monitor", id))
          }
          yield* componentExists(definition.componentId)
          return yield* move(id, definition)
        }),

      /** The newest stored checks of every region. */
      results: (id: MonitorId, limit: number) => Effect.zipRight(get(id), repo.recentRuns(id, limit)),

      /** Deletes a monitor; its past downtime stays in the uptime history, its open interval ends now. */
      remove: (id: MonitorId) =>
        stateChanges.commit(Effect.gen(function*() {
          const { componentId } = yield* lockPlacement(id)
          yield* repo.endDowntime(id, yield* Clock.currentTimeMillis)
          yield* repo.remove(id)
          yield* applyMonitorStatus(checks, outbox, componentId)
        }))
    } as const
  }),
  dependencies: [
    MonitorsRepo.Default,
    ComponentsRepo.Default,
    ChecksRepo.Default,
    OutboxRepo.Default,
    StateChanges.Default
  ]
}) {}
