/**
 * Monitor configuration: defaults, the rules across fields (definitionIssues), and the
 * component each monitor belongs to. A monitor deleted, or moved to another component, takes
 * its downtime with it from that moment: its open down interval ends there (past downtime
 * stays) and the components it leaves and joins have their status decided again from their
 * monitors, as ingest decides it, in the same transaction.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"

import type { ComponentId } from "../../domain/Component.js"
import { BadRequest, type Issue, NotFound, orNotFound } from "../../domain/Errors.js"
import type { IncidentTemplateId } from "../../domain/Incident.js"
import type { CreateMonitor, Headers, MonitorDefinition, MonitorId, UpdateMonitor } from "../../domain/Monitor.js"
import {
  definitionIssues,
  maskedHeaderValue,
  Monitor,
  monitorLimits,
  normalizeTarget,
  typeDefaults,
  type TypeFields
} from "../../domain/Monitor.js"
import type { PageRequest } from "../../domain/Page.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { IncidentTemplatesRepo } from "../../persistence/IncidentTemplatesRepo.js"
import { MonitorsRepo } from "../../persistence/MonitorsRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { collectingMoves, ComponentStatuses, statusChanges, type StatusMove } from "../catalog/ComponentStatuses.js"
import { StateChanges, touch } from "../StateChanges.js"
import { ProbeRegistry } from "./ProbeRegistry.js"

/** Default time-out: 10 s, or half the interval when that is shorter. */
const defaultTimeout = (intervalSeconds: number) => Math.min(monitorLimits.timeoutMs.default, intervalSeconds * 500)

/** A monitor as the API answers it: header values are never shown after creation. */
const masked = (monitor: Monitor): Monitor =>
  monitor.headers === null ? monitor : new Monitor({
    ...monitor,
    headers: Object.fromEntries(Object.keys(monitor.headers).map((name) => [name, maskedHeaderValue]))
  })

/**
 * A monitor as its audit entry compares it: its settings, not what its checks found. Header
 * values are secrets: the entry shows `headers` as `(secret)`.
 */
const auditView = (monitor: Monitor) => {
  const { regionStates: _regionStates, reportingRegions: _reportingRegions, state: _state, ...settings } = monitor
  return settings
}

/**
 * The headers to store: `"********"` for a name keeps the stored value of that name (names
 * compare case-insensitively); an empty set is none.
 */
const resolveHeaders = (
  given: Headers | null,
  stored: Headers | null
): { readonly headers: Headers | null; readonly issues: ReadonlyArray<Issue> } => {
  if (given === null || Object.keys(given).length === 0) return { headers: null, issues: [] }
  const issues: Array<Issue> = []
  const storedValue = (name: string) =>
    stored === null ? undefined : Object.entries(stored).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1]
  const headers = Object.fromEntries(
    Object.entries(given).map(([name, value]) => {
      if (value !== maskedHeaderValue) return [name, value]
      const kept = storedValue(name)
      if (kept === undefined) {
        issues.push({
          path: ["headers", name],
          message: `"${maskedHeaderValue}" keeps a stored value, and this monitor has none for this header`
        })
      }
      return [name, kept ?? value]
    })
  )
  return { headers, issues }
}

/**
 * The list of codes from the fields given: `expectedStatusCodes`, else the single
 * `expectedStatusCode` (which keeps working), else `otherwise`.
 */
const statusCodes = (
  input: {
    readonly expectedStatusCode?: number | null | undefined
    readonly expectedStatusCodes?: ReadonlyArray<string> | undefined
  },
  type: MonitorDefinition["type"],
  otherwise: ReadonlyArray<string> | null
): { readonly codes: ReadonlyArray<string> | null; readonly issues: ReadonlyArray<Issue> } => {
  if (input.expectedStatusCode !== undefined && input.expectedStatusCodes !== undefined) {
    return {
      codes: otherwise,
      issues: [{ path: ["expectedStatusCodes"], message: "give expectedStatusCode or expectedStatusCodes, not both" }]
    }
  }
  if (input.expectedStatusCodes !== undefined) return { codes: input.expectedStatusCodes, issues: [] }
  if (input.expectedStatusCode === undefined) return { codes: otherwise, issues: [] }
  if (input.expectedStatusCode !== null) return { codes: [String(input.expectedStatusCode)], issues: [] }
  return type === "http"
    ? {
      codes: otherwise,
      issues: [{ path: ["expectedStatusCode"], message: "an http monitor checks for one: 100-599" }]
    }
    : { codes: null, issues: [] }
}

/**
 * How the audit log names a monitor: its URL without credentials, query or fragment (a URL may
 * carry a token there); an address that is not a URL (`host:port`) as it is.
 */
const displayUrl = (url: string) => {
  try {
    const parsed = new URL(url)
    return parsed.host === "" ? url : `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return url
  }
}

/**
 * What a change of a monitor touches: its component's status (the public side reads it again) and
 * the monitors themselves, which only the admin side's live stream follows.
 */
const touchesComponentsAndMonitors = touch({ components: true, monitors: true })

export class Monitors extends Context.Service<Monitors>()("Monitors", {
  make: Effect.gen(function*() {
    const repo = yield* MonitorsRepo
    const components = yield* ComponentsRepo
    const statuses = yield* ComponentStatuses
    const stateChanges = yield* StateChanges
    const registry = yield* ProbeRegistry
    const templates = yield* IncidentTemplatesRepo
    const audit = yield* AuditTrail
    const transaction = audit.transaction

    /**
     * The one audit entry of a change of `monitor` from `before` to `after` (either absent: a
     * creation or deletion), with the components' statuses it moved. A monitor has no name: its
     * target is named by what it checks.
     */
    const record = (
      monitor: Monitor,
      before: Monitor | undefined,
      after: Monitor | undefined,
      moves: ReadonlyArray<StatusMove> = []
    ) =>
      audit.record({
        target: { type: "monitor", id: monitor.id, name: displayUrl(monitor.url) },
        changes: {
          ...changesBetween(
            before === undefined ? undefined : auditView(before),
            after === undefined ? undefined : auditView(after),
            // A request body may hold credentials, as header values do (those are secret always).
            ["body"]
          ),
          ...statusChanges(moves)
        }
      })

    const componentExists = (id: ComponentId) =>
      components.findById(id).pipe(
        Effect.flatMap(
          Option.match({ onNone: () => Effect.fail(NotFound.of("Component", id)), onSome: () => Effect.void })
        )
      )

    const templateExists = (id: string | null) =>
      id === null ? Effect.void : templates.findById(id as IncidentTemplateId).pipe(
        Effect.flatMap(
          Option.match({ onNone: () => Effect.fail(NotFound.of("Incident template", id)), onSome: () => Effect.void })
        )
      )

    /**
     * Checks the definition and brings its target to the stored form. `earlier`: issues found
     * while reading the request; `legacyCode`: the request set `expectedStatusCode`, so issues of
     * the list name that field.
     */
    const validated = (definition: MonitorDefinition, earlier: ReadonlyArray<Issue>, legacyCode: boolean) =>
      Effect.gen(function*() {
        const issues = [
          ...earlier,
          ...definitionIssues(definition).map((issue) =>
            legacyCode && issue.path[0] === "expectedStatusCodes" ? { ...issue, path: ["expectedStatusCode"] } : issue
          )
        ]
        if (issues.length > 0) return yield* BadRequest.fromIssues(issues)
        const target = normalizeTarget(definition.type, definition.url)
        return { ...definition, url: "url" in target ? target.url : definition.url }
      })

    const offline = registry.offlineRegions()
    /** The stored monitor, header values included (for an update to keep them). */
    const stored = (id: MonitorId) =>
      Effect.flatMap(offline, (regions) => repo.findById(id, regions)).pipe(orNotFound("Monitor", id))
    const get = (id: MonitorId) => Effect.map(stored(id), masked)

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
    const move = (id: MonitorId, definition: MonitorDefinition, current: Monitor) =>
      stateChanges.commit(Effect.gen(function*() {
        // Of the public state, only the components' statuses change.
        yield* touchesComponentsAndMonitors
        const before = yield* lockPlacement(id, definition.componentId)
        const [after, moves] = yield* collectingMoves(Effect.gen(function*() {
          const after = yield* repo.replace(id, definition, yield* offline).pipe(orNotFound("Monitor", id))
          if (before.componentId === definition.componentId) return after // moved there meanwhile
          const now = yield* Clock.currentTimeMillis
          yield* repo.endDowntime(id, now)
          if (before.state === "down") yield* repo.openDowntime(id, definition.componentId, now)
          for (const componentId of [before.componentId, definition.componentId].sort()) {
            yield* statuses.followMonitors(componentId)
          }
          return after
        }))
        yield* record(after, current, after, moves)
        return after
      }))

    return {
      list: Effect.fn("Monitors.list")((page: PageRequest) =>
        Effect.flatMap(
          offline,
          (regions) =>
            Effect.map(repo.findPage(page, regions), (found) => ({ ...found, items: found.items.map(masked) }))
        )
      ),
      get: Effect.fn("Monitors.get")(get),

      create: Effect.fn("Monitors.create")((input: CreateMonitor) =>
        Effect.gen(function*() {
          const intervalSeconds = input.intervalSeconds ?? monitorLimits.intervalSeconds.default
          const defaults = typeDefaults(input.type)
          const headers = resolveHeaders(input.headers ?? null, null)
          const codes = statusCodes(input, input.type, defaults.expectedStatusCodes)
          const definition = yield* validated(
            {
              componentId: input.componentId,
              type: input.type,
              url: input.url,
              intervalSeconds,
              timeoutMs: input.timeoutMs ?? defaultTimeout(intervalSeconds),
              failureThreshold: input.failureThreshold ?? monitorLimits.failureThreshold.default,
              regions: input.regions ?? null,
              quorum: input.quorum ?? "majority",
              degradedAboveMs: input.degradedAboveMs ?? null,
              method: input.method ?? defaults.method,
              headers: headers.headers,
              body: input.body ?? null,
              expectedStatusCodes: codes.codes,
              bodyContains: input.bodyContains ?? null,
              bodyNotContains: input.bodyNotContains ?? null,
              dnsRecordType: input.dnsRecordType ?? defaults.dnsRecordType,
              dnsExpectedValues: input.dnsExpectedValues ?? null,
              incidentPolicy: input.incidentPolicy ?? "off",
              incidentTemplateId: input.incidentTemplateId ?? null,
              resolveAfterSeconds: input.resolveAfterSeconds ?? monitorLimits.resolveAfterSeconds.default
            },
            [...headers.issues, ...codes.issues],
            input.expectedStatusCode !== undefined
          )
          yield* componentExists(definition.componentId)
          yield* templateExists(definition.incidentTemplateId)
          const regions = yield* offline
          const created = yield* transaction(Effect.gen(function*() {
            const created = yield* repo.insert(definition, regions, yield* Clock.currentTimeMillis)
            yield* record(created, undefined, created)
            return created
          }))
          // Nothing public changes: only the admin side's live stream hears of it.
          yield* stateChanges.announce({ monitors: true })
          return masked(created)
        })
      ),

      /**
       * A partial update. Changing the type resets the fields of a type (method, headers, body,
       * status codes, body texts, dns fields) to the new type's defaults; `"********"` as a
       * header's value keeps its stored value.
       */
      update: Effect.fn("Monitors.update")((id: MonitorId, changes: UpdateMonitor) =>
        Effect.gen(function*() {
          const current = yield* stored(id)
          const type = changes.type ?? current.type
          const typeChanged = type !== current.type
          const defaults = typeDefaults(type)
          /** The value given, else the new type's default after a type change, else the stored one. */
          const typed = <K extends keyof TypeFields>(field: K): TypeFields[K] =>
            changes[field] !== undefined
              ? changes[field] as TypeFields[K]
              : typeChanged
              ? defaults[field]
              : current[field] as TypeFields[K]
          const headers = changes.headers !== undefined
            ? resolveHeaders(changes.headers, typeChanged ? null : current.headers)
            : { headers: typed("headers"), issues: [] }
          const codes = statusCodes(changes, type, typed("expectedStatusCodes"))
          const definition = yield* validated(
            {
              componentId: changes.componentId ?? current.componentId,
              type,
              url: changes.url ?? current.url,
              intervalSeconds: changes.intervalSeconds ?? current.intervalSeconds,
              timeoutMs: changes.timeoutMs ?? current.timeoutMs,
              failureThreshold: changes.failureThreshold ?? current.failureThreshold,
              regions: changes.regions !== undefined ? changes.regions : current.regions,
              quorum: changes.quorum ?? current.quorum,
              degradedAboveMs: changes.degradedAboveMs !== undefined
                ? changes.degradedAboveMs
                : current.degradedAboveMs,
              method: typed("method"),
              headers: headers.headers,
              body: typed("body"),
              expectedStatusCodes: codes.codes,
              bodyContains: typed("bodyContains"),
              bodyNotContains: typed("bodyNotContains"),
              dnsRecordType: typed("dnsRecordType"),
              dnsExpectedValues: typed("dnsExpectedValues"),
              incidentPolicy: changes.incidentPolicy ?? current.incidentPolicy,
              incidentTemplateId: changes.incidentTemplateId !== undefined
                ? changes.incidentTemplateId
                : current.incidentTemplateId,
              resolveAfterSeconds: changes.resolveAfterSeconds ?? current.resolveAfterSeconds
            },
            [...headers.issues, ...codes.issues],
            changes.expectedStatusCode !== undefined
          )
          if (definition.incidentTemplateId !== current.incidentTemplateId) {
            yield* templateExists(definition.incidentTemplateId)
          }
          if (definition.componentId === current.componentId) {
            const regions = yield* offline
            const updated = yield* transaction(Effect.gen(function*() {
              const updated = yield* repo.replace(id, definition, regions).pipe(orNotFound("Monitor", id))
              yield* record(updated, current, updated)
              return updated
            }))
            yield* stateChanges.announce({ monitors: true })
            return masked(updated)
          }
          yield* componentExists(definition.componentId)
          return masked(yield* move(id, definition, current))
        })
      ),

      /** The newest stored checks of every region. */
      results: Effect.fn("Monitors.results")((id: MonitorId, page: PageRequest) =>
        Effect.andThen(get(id), repo.runsPage(id, page))
      ),

      /**
       * Pauses or resumes a monitor. Pausing ends its open down interval now (a paused time is no
       * data, not downtime), forgets what its regions found and decides its component's status
       * again without it; the scheduler drops it at its next reload. Resuming puts it back on its
       * slots, `unknown` until checked, and judged on runs scheduled from now on only (reports of
       * earlier runs that waited in Redis are refused). Doing either twice changes nothing.
       */
      setPaused: Effect.fn("Monitors.setPaused")((id: MonitorId, paused: boolean) =>
        stateChanges.commit(Effect.gen(function*() {
          yield* touchesComponentsAndMonitors
          const { componentId } = yield* lockPlacement(id)
          const before = yield* stored(id)
          const [, moves] = yield* collectingMoves(Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            if (paused) yield* repo.endDowntime(id, now)
            yield* repo.setPaused(id, paused, now)
            if (paused) yield* statuses.followMonitors(componentId)
          }))
          const after = yield* stored(id)
          yield* record(after, before, after, moves)
          return masked(after)
        }))
      ),

      /** Deletes a monitor; its past downtime stays in the uptime history, its open interval ends now. */
      remove: Effect.fn("Monitors.remove")((id: MonitorId) =>
        stateChanges.commit(Effect.gen(function*() {
          yield* touchesComponentsAndMonitors
          const { componentId } = yield* lockPlacement(id)
          const before = yield* stored(id)
          const [, moves] = yield* collectingMoves(Effect.gen(function*() {
            yield* repo.endDowntime(id, yield* Clock.currentTimeMillis)
            yield* repo.remove(id)
            yield* statuses.followMonitors(componentId)
          }))
          yield* record(before, before, undefined, moves)
        }))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      MonitorsRepo.layer,
      ComponentsRepo.layer,
      ComponentStatuses.layer,
      StateChanges.layer,
      ProbeRegistry.layer,
      IncidentTemplatesRepo.layer,
      AuditTrail.layer
    ])
  )
}
