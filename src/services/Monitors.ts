/**
 * Monitor configuration: defaults, the rules across fields (definitionIssues), and the
 * component each monitor belongs to.
 */
import { Effect, Option } from "effect"
import { BadRequest, NotFound, orNotFound } from "../domain/Errors.js"
import { definitionIssues, monitorLimits, normalizeTarget } from "../domain/Monitor.js"
import type { CreateMonitor, MonitorDefinition, MonitorId, UpdateMonitor } from "../domain/Monitor.js"
import { ComponentsRepo } from "../persistence/ComponentsRepo.js"
import { MonitorsRepo } from "../persistence/MonitorsRepo.js"
import type { ComponentId } from "../domain/Component.js"

/** Default time-out: 10 s, or half the interval when that is shorter. */
const defaultTimeout = (intervalSeconds: number) => Math.min(monitorLimits.timeoutMs.default, intervalSeconds * 500)

export class Monitors extends Effect.Service<Monitors>()("Monitors", {
  effect: Effect.gen(function*() {
    const repo = yield* MonitorsRepo
    const components = yield* ComponentsRepo

    const componentExists = (id: ComponentId) =>
      components.findById(id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(NotFound.of("Component", id)), onSome: () => Effect.void }))
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
          if (definition.componentId !== current.componentId) yield* componentExists(definition.componentId)
          return yield* repo.replace(id, definition).pipe(orNotFound("Monitor", id))
        }),

      /** The newest stored checks of every region. */
      results: (id: MonitorId, limit: number) => Effect.zipRight(get(id), repo.recentRuns(id, limit)),

      remove: (id: MonitorId) =>
        repo.remove(id).pipe(
          Effect.filterOrFail((deleted) => deleted, () => NotFound.of("Monitor", id)),
          Effect.asVoid
        )
    } as const
  }),
  dependencies: [MonitorsRepo.Default, ComponentsRepo.Default]
}) {}
