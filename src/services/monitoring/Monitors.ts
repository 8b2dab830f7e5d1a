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
import type {
  CreateMonitor,
  Headers,
  MonitorDefinition,
  MonitorId,
  MonitorType,
  UpdateMonitor
} from "../../domain/Monitor.js"
import {
  definitionIssues,
  maskedHeaderValue,
  Monitor,
  monitorLimits,
  normalizeTarget,
  typeDefaults,
  type TypeFields
} from "../../domain/Monitor.js"
import { targetHost } from "../../domain/NetworkAddress.js"
import type { PageRequest } from "../../domain/Page.js"
import { pushTarget } from "../../domain/PushToken.js"
import { pushRegion } from "../../domain/Region.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { IncidentTemplatesRepo } from "../../persistence/IncidentTemplatesRepo.js"
import { MonitorsRepo } from "../../persistence/MonitorsRepo.js"
import { PushMonitorsRepo } from "../../persistence/PushMonitorsRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { collectingMoves, ComponentStatuses, statusChanges, type StatusMove } from "../catalog/ComponentStatuses.js"
import { afterCommit, StateChanges, touch } from "../StateChanges.js"
import { ProbeRegistry } from "./ProbeRegistry.js"
import { PushIndex } from "./PushIndex.js"
import { newPushToken, pushTokenHash } from "./PushTokens.js"

/**
 * The fields a push monitor does not take (its URL is made here, its one region is `push`, so
 * quorum does not apply), and those other types must have or cannot take.
 */
const pushIssues = (
  type: MonitorType,
  given: { readonly url?: string; readonly regions?: unknown; readonly quorum?: unknown; readonly pushToken?: string },
  urlRequired: boolean
): ReadonlyArray<Issue> => {
  if (type !== "push") {
    return [
      ...(urlRequired && given.url === undefined ? [{ path: ["url"], message: "is required" }] : []),
      ...(given.pushToken !== undefined ? [{ path: ["pushToken"], message: "applies to push monitors only" }] : [])
    ]
  }
  const made = "is not taken by a push monitor"
  return [
    ...(given.url !== undefined ? [{ path: ["url"], message: `${made}: the service makes its URL` }] : []),
    ...(given.regions !== undefined ? [{ path: ["regions"], message: `${made}: its one region is push` }] : []),
    ...(given.quorum !== undefined ? [{ path: ["quorum"], message: `${made}: its one region is push` }] : [])
  ]
}

/** The fields push fixes, else the ones given or kept. */
const pushPlacement = <Q>(type: MonitorType, url: string, regions: ReadonlyArray<string> | null, quorum: Q) =>
  type === "push"
    ? { url: pushTarget, regions: [pushRegion], quorum: "any" as const }
    : { url, regions, quorum }

/** Default time-out: 10 s, or half the interval when that is shorter. */
const defaultTimeout = (intervalSeconds: number) => Math.min(monitorLimits.timeoutMs.default, intervalSeconds * 500)

/** A monitor as the API answers it: header values and the password are never shown after creation. */
const masked = (monitor: Monitor): Monitor =>
  monitor.headers === null && monitor.password === null ? monitor : new Monitor({
    ...monitor,
    headers: monitor.headers === null
      ? null
      : Object.fromEntries(Object.keys(monitor.headers).map((name) => [name, maskedHeaderValue])),
    password: monitor.password === null ? null : maskedHeaderValue
  })

/**
 * The password to store: `"********"` keeps the stored one (an issue when there is none), null
 * or "" clears it.
 */
const resolvePassword = (
  given: string | null,
  stored: string | null
): { readonly password: string | null; readonly issues: ReadonlyArray<Issue> } =>
  given === null || given === ""
    ? { password: null, issues: [] }
    : given !== maskedHeaderValue
    ? { password: given, issues: [] }
    : stored !== null
    ? { password: stored, issues: [] }
    : {
      password: null,
      issues: [{
        path: ["password"],
        message: `"${maskedHeaderValue}" keeps a stored password, and this monitor has none`
      }]
    }

/** The answer that made a push monitor's token: the only one that shows it. */
const withToken = (monitor: Monitor, pushToken: string | undefined): Monitor =>
  pushToken === undefined ? monitor : new Monitor({ ...monitor, pushToken })

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
    const pushIndex = yield* PushIndex
    const pushRepo = yield* PushMonitorsRepo
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
        // A field the request got wrong already (a missing url) is not judged again across fields.
        const named = new Set(earlier.filter((issue) => issue.path.length === 1).map((issue) => issue.path[0]))
        const acrossFields = definitionIssues(definition).filter((issue) =>
          !(issue.path.length === 1 && named.has(issue.path[0]))
        )
        const issues = [
          ...earlier,
          ...acrossFields.map((issue) =>
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
    const move = (id: MonitorId, definition: MonitorDefinition, current: Monitor, pushTokenHash: string | null) =>
      stateChanges.commit(Effect.gen(function*() {
        // Of the public state, only the components' statuses change.
        yield* touchesComponentsAndMonitors
        const before = yield* lockPlacement(id, definition.componentId)
        const [after, moves] = yield* collectingMoves(Effect.gen(function*() {
          const after = yield* repo.replace(id, definition, yield* offline, pushTokenHash).pipe(
            orNotFound("Monitor", id)
          )
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
          const password = resolvePassword(input.password ?? null, null)
          const codes = statusCodes(input, input.type, defaults.expectedStatusCodes)
          const isPush = input.type === "push"
          const definition = yield* validated(
            {
              componentId: input.componentId,
              type: input.type,
              ...pushPlacement(input.type, input.url ?? "", input.regions ?? null, input.quorum ?? "majority"),
              intervalSeconds,
              timeoutMs: input.timeoutMs ?? defaultTimeout(intervalSeconds),
              // A missed heartbeat is down at once, as in Uptime Kuma; probes' checks wait for a streak.
              failureThreshold: input.failureThreshold ?? (isPush ? 1 : monitorLimits.failureThreshold.default),
              degradedAboveMs: input.degradedAboveMs ?? null,
              method: input.method ?? defaults.method,
              headers: headers.headers,
              body: input.body ?? null,
              expectedStatusCodes: codes.codes,
              bodyContains: input.bodyContains ?? null,
              bodyNotContains: input.bodyNotContains ?? null,
              assertions: input.assertions ?? null,
              dnsRecordType: input.dnsRecordType ?? defaults.dnsRecordType,
              dnsExpectedValues: input.dnsExpectedValues ?? null,
              password: password.password,
              grpcService: input.grpcService || null,
              pingCount: input.pingCount ?? defaults.pingCount,
              incidentPolicy: input.incidentPolicy ?? "off",
              incidentTemplateId: input.incidentTemplateId ?? null,
              resolveAfterSeconds: input.resolveAfterSeconds ?? monitorLimits.resolveAfterSeconds.default,
              graceSeconds: input.graceSeconds ?? (isPush ? Math.min(defaults.graceSeconds!, intervalSeconds) : null)
            },
            [...pushIssues(input.type, input, true), ...headers.issues, ...password.issues, ...codes.issues],
            input.expectedStatusCode !== undefined
          )
          yield* componentExists(definition.componentId)
          yield* templateExists(definition.incidentTemplateId)
          const regions = yield* offline
          const pushToken = isPush ? input.pushToken ?? newPushToken() : undefined
          const created = yield* transaction(Effect.gen(function*() {
            const created = yield* repo.insert(
              definition,
              regions,
              yield* Clock.currentTimeMillis,
              pushToken === undefined ? null : pushTokenHash(pushToken)
            )
            yield* record(created, undefined, created)
            return created
          }))
          // Nothing public changes: only the admin side's live stream hears of it.
          yield* stateChanges.announce({ monitors: true })
          if (isPush) yield* afterCommit(pushIndex.reload)
          return withToken(masked(created), pushToken)
        })
      ),

      /**
       * A partial update. Changing the type resets the fields of a type (method, headers, body,
       * status codes, body texts, JSON assertions, dns fields) to the new type's defaults; `"********"` as a
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
          const password = changes.password !== undefined
            ? resolvePassword(changes.password, typeChanged ? null : current.password)
            : { password: typed("password"), issues: [] }
          const codes = statusCodes(changes, type, typed("expectedStatusCodes"))
          // A monitor leaving push needs a target and takes probe regions again; one becoming push gets a token.
          const leavesPush = current.type === "push" && type !== "push"
          const intervalSeconds = changes.intervalSeconds ?? current.intervalSeconds
          const pushToken = typeChanged && type === "push" ? newPushToken() : undefined
          const definition = yield* validated(
            {
              componentId: changes.componentId ?? current.componentId,
              type,
              ...pushPlacement(
                type,
                changes.url ?? current.url,
                changes.regions !== undefined ? changes.regions : leavesPush ? null : current.regions,
                changes.quorum ?? (leavesPush ? "majority" : current.quorum)
              ),
              intervalSeconds,
              timeoutMs: changes.timeoutMs ?? current.timeoutMs,
              failureThreshold: changes.failureThreshold ?? current.failureThreshold,
              degradedAboveMs: changes.degradedAboveMs !== undefined
                ? changes.degradedAboveMs
                : current.degradedAboveMs,
              method: typed("method"),
              headers: headers.headers,
              body: typed("body"),
              expectedStatusCodes: codes.codes,
              bodyContains: typed("bodyContains"),
              bodyNotContains: typed("bodyNotContains"),
              assertions: typed("assertions"),
              dnsRecordType: typed("dnsRecordType"),
              dnsExpectedValues: typed("dnsExpectedValues"),
              password: password.password,
              grpcService: typed("grpcService") || null,
              pingCount: typed("pingCount") ?? (type === "icmp" ? defaults.pingCount : null),
              incidentPolicy: changes.incidentPolicy ?? current.incidentPolicy,
              incidentTemplateId: changes.incidentTemplateId !== undefined
                ? changes.incidentTemplateId
                : current.incidentTemplateId,
              resolveAfterSeconds: changes.resolveAfterSeconds ?? current.resolveAfterSeconds,
              graceSeconds: changes.graceSeconds === undefined && typeChanged && type === "push"
                ? Math.min(defaults.graceSeconds!, intervalSeconds)
                : typed("graceSeconds")
            },
            [...pushIssues(type, changes, leavesPush), ...headers.issues, ...password.issues, ...codes.issues],
            changes.expectedStatusCode !== undefined
          )
          // A kept secret goes only to the host it was given for: a new host needs it given again.
          if (targetHost(definition.url) !== targetHost(current.url)) {
            const keeps = (given: unknown) =>
              given === undefined || given === maskedHeaderValue ||
              (typeof given === "object" && given !== null && Object.values(given).includes(maskedHeaderValue))
            const kept = [
              ...(definition.password !== null && keeps(changes.password) ? ["password"] : []),
              ...(definition.headers !== null && current.headers !== null && keeps(changes.headers) ? ["headers"] : [])
            ]
            if (kept.length > 0) {
              return yield* BadRequest.fromIssues(kept.map((field) => ({
                path: [field],
                message:
                  "give it again with a target on another host: a stored secret is sent only to the host it was given for"
              })))
            }
          }
          const hash = pushToken === undefined ? null : pushTokenHash(pushToken)
          if (definition.incidentTemplateId !== current.incidentTemplateId) {
            yield* templateExists(definition.incidentTemplateId)
          }
          if (definition.componentId === current.componentId) {
            const regions = yield* offline
            const updated = yield* transaction(Effect.gen(function*() {
              const updated = yield* repo.replace(id, definition, regions, hash).pipe(orNotFound("Monitor", id))
              yield* record(updated, current, updated)
              return updated
            }))
            yield* stateChanges.announce({ monitors: true })
            if (type === "push" || current.type === "push") yield* afterCommit(pushIndex.reload)
            return withToken(masked(updated), pushToken)
          }
          yield* componentExists(definition.componentId)
          const moved = yield* move(id, definition, current, hash)
          if (type === "push" || current.type === "push") yield* afterCommit(pushIndex.reload)
          return withToken(masked(moved), pushToken)
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
        })).pipe(Effect.tap((after) => after.type === "push" ? afterCommit(pushIndex.reload) : Effect.void))
      ),

      /**
       * Gives a push monitor a new token: the old one is refused from now on (on other instances
       * once they hear of the change, within a second or two). Answers the monitor with the new
       * token, the only time it is shown. Any other type of monitor is 400.
       */
      rotatePushToken: Effect.fn("Monitors.rotatePushToken")((id: MonitorId) =>
        Effect.gen(function*() {
          const before = yield* get(id)
          if (before.type !== "push") {
            return yield* BadRequest.fromIssues([{ path: ["type"], message: "only a push monitor has a push token" }])
          }
          const pushToken = newPushToken()
          yield* transaction(Effect.gen(function*() {
            if (!(yield* pushRepo.rotate(id, pushTokenHash(pushToken)))) return yield* NotFound.of("Monitor", id)
            yield* audit.record({
              target: { type: "monitor", id, name: displayUrl(before.url) },
              changes: { pushToken: { before: "(secret)", after: "(secret)" } }
            })
          }))
          yield* stateChanges.announce({ monitors: true })
          yield* afterCommit(pushIndex.reload)
          return withToken(yield* get(id), pushToken)
        })
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
          return before.type
        })).pipe(Effect.flatMap((type) => type === "push" ? afterCommit(pushIndex.reload) : Effect.void))
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
      AuditTrail.layer,
      PushIndex.layer,
      PushMonitorsRepo.layer
    ])
  )
}
