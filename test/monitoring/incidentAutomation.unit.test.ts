/**
 * The automatic incidents' service (IncidentAutomation) without PostgreSQL, on the TestClock: what
 * each step writes (an incident with the evidence of the regions that count, in the template's
 * words or the component's; recovered; down again; resolved after the wait, or at once with 0),
 * one incident per outage (an operator closing it opens no other), an untold relapse restarting
 * the wait, each step decided again under the monitor's lock, one monitor's failure leaving the
 * others'. In memory, the repository's select reads the open incident and `covered` as the
 * statement does; Incidents' automatic writes keep the rules incidents.unit.test.ts tests.
 * `nextStep` alone: test/domain/automaticIncident.unit.test.ts. The same on PostgreSQL:
 * test/monitoring/automaticIncidents.test.ts and automaticIncidentsLive.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, type Duration, Effect, Layer, Logger } from "effect"
import { TestClock } from "effect/testing"

import type { Incident, IncidentId, IncidentStatus } from "../../src/domain/Incident.js"
import type { IncidentPolicy } from "../../src/domain/Monitor.js"
import type { MonitorState } from "../../src/domain/Quorum.js"
import {
  AutomaticIncidentsRepo,
  AutomationRow,
  FindingRow,
  OpeningRow
} from "../../src/persistence/AutomaticIncidentsRepo.js"
import { orUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { type AutomaticIncident, Incidents } from "../../src/services/catalog/Incidents.js"
import { IncidentAutomation } from "../../src/services/monitoring/IncidentAutomation.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import { makeTestLayer } from "../support/TestLayer.js"

const t0 = Date.parse("2025-01-01T03:00:00Z")
const second = 1000
const minute = 60 * second
const dateOf = (ms: number | null | undefined) => ms === null || ms === undefined ? null : new Date(ms)

/** A monitor, unless a test says otherwise. */
const monitor = {
  componentId: "api",
  state: "down" as MonitorState,
  stateChangedAt: t0,
  paused: false,
  policy: "publish" as IncidentPolicy,
  templateId: null as string | null,
  resolveAfterSeconds: 300
}

/** A new automatic incident, as Incidents.automatic.open writes it, with the automation's columns. */
const opened = (
  id: string,
  fields: Pick<AutomaticIncident, "monitorId" | "title" | "severity" | "published">,
  downSince: number,
  message: string
) => ({
  ...fields,
  id: id as IncidentId,
  status: "investigating" as IncidentStatus,
  automation: "active" as "active" | "handed_over",
  downSince,
  upSince: null as number | null,
  notedAt: null as number | null,
  relapses: 0,
  updates: [{ status: "investigating" as IncidentStatus, message }]
})

const world = (given: Record<string, Partial<typeof monitor>>) => {
  const monitors = Object.fromEntries(Object.entries(given).map(([id, m]) => [id, { ...monitor, ...m }]))
  const incidents: Array<ReturnType<typeof opened>> = []
  const findings = new Map<string, Array<FindingRow>>()
  const offline = new Set<string>()
  const warnings: Array<{ message: string; monitorId: unknown }> = []
  /** What happens while a pass waits for a monitor's lock (another instance's step, a lost connection). */
  const hooks = { beforeLock: (_monitorId: string) => {} }
  const components: Record<string, { componentName: string; componentStatus: string }> = {
    api: { componentName: "API", componentStatus: "major_outage" },
    web: { componentName: "Web", componentStatus: "partial_outage" }
  }
  const template = { templateTitle: "Checkout is failing", templateMessage: "We know.", templateSeverity: "critical" }
  const noTemplate = { templateTitle: null, templateMessage: null, templateSeverity: null }

  const write = (f: () => void) =>
    Effect.sync(() => {
      f()
      return []
    })
  const openOf = (monitorId: string) => incidents.find((i) => i.monitorId === monitorId && i.status !== "resolved")
  const incident = (id: string) => incidents.find((i) => i.id === id)!
  const insert = (fields: Parameters<typeof opened>[1], downSince: number, message = "") =>
    incidents.push(opened(`i-${incidents.length + 1}`, fields, downSince, message))

  /** The repository's select: the monitor, its open automatic incident, and whether one covers its outage. */
  const select = (ids: Iterable<string>) =>
    [...new Set(ids)].filter((id) => id in monitors).map((id) => {
      const m = monitors[id]!
      const current = openOf(id)
      return new AutomationRow({
        id,
        componentId: m.componentId,
        state: m.state,
        stateChangedAt: dateOf(m.stateChangedAt),
        paused: m.paused,
        intervalSeconds: 60,
        regions: null,
        incidentPolicy: m.policy,
        incidentTemplateId: m.templateId,
        resolveAfterSeconds: m.resolveAfterSeconds,
        incidentId: current?.id ?? null,
        automation: current?.automation ?? null,
        monitorUpSince: dateOf(current?.upSince),
        monitorNotedAt: dateOf(current?.notedAt),
        monitorRelapses: current?.relapses ?? null,
        // `monitor_down_since >= state_changed_at` of any of its automatic incidents, open or resolved.
        covered: incidents.some((i) => i.monitorId === id && i.downSince >= m.stateChangedAt)
      })
    })

  const repo = makeTestLayer(AutomaticIncidentsRepo)({
    monitor: (id) => Effect.sync(() => select([id])),
    monitors: (ids) => Effect.sync(() => select(ids)),
    mayNeedStep: Effect.sync(() =>
      select(
        Object.entries(monitors).filter(([id, m]) =>
          (m.state === "down" && m.policy !== "off" && !m.paused) || openOf(id) !== undefined
        ).map(([id]) => id)
      )
    ),
    lockMonitor: (id) => write(() => hooks.beforeLock(id)),
    regionFindings: (id) =>
      Effect.sync(() => [...(findings.get(id) ?? [])].sort((a, b) => a.region.localeCompare(b.region))),
    opening: (componentId, templateId) =>
      Effect.sync(() =>
        new OpeningRow({ ...components[componentId]!, ...(templateId === null ? noTemplate : template) } as OpeningRow)
      ),
    setUpSince: (id, at) => write(() => incident(id).upSince = at.getTime()),
    setNotedAt: (id, at) => write(() => incident(id).notedAt = at.getTime()),
    setRelapse: (id, downSince) =>
      write(() => {
        const i = incident(id)
        Object.assign(i, { upSince: null, relapses: i.relapses + 1, downSince: downSince?.getTime() ?? i.downSince })
      })
  })

  // Incidents' automatic writes: an update in the incident's own status once an operator has it,
  // no resolve then; a second open incident of a monitor is refused (migration 0026's unique index).
  const automatic = makeTestLayer(Incidents)({
    automatic: {
      open: (input) =>
        Effect.sync(() => {
          if (openOf(input.monitorId) !== undefined) throw new Error("incidents_open_per_monitor")
          insert(input, input.downSince.getTime(), input.message)
          return {} as Incident // not read by the automation
        }),
      note: (id, message, statusWhileActive) =>
        Effect.sync(() => {
          const i = incident(id)
          if (i.status === "resolved") return
          if (i.automation === "active") i.status = statusWhileActive
          i.updates.push({ status: i.status, message })
        }),
      resolve: (id, message) =>
        Effect.sync(() => {
          const i = incident(id)
          if (i.status === "resolved" || i.automation !== "active") return
          i.status = "resolved"
          i.updates.push({ status: "resolved", message })
        })
    }
  })

  const capture = Logger.make((options) =>
    warnings.push({ message: String([options.message].flat()[0]), monitorId: logAnnotations(options).monitorId })
  )
  const layer = Layer.mergeAll(
    IncidentAutomation.layerWithoutDependencies.pipe(Layer.provide([
      repo,
      automatic,
      makeTestLayer(StateChanges)({ commit: orUnavailable }),
      makeTestLayer(ProbeRegistry)({ offlineRegions: () => Effect.succeed(offline) })
    ])),
    replaceDefaultLogger(capture)
  )

  const advance = (...ids: Array<string>) =>
    Effect.flatMap(IncidentAutomation, (automation) => automation.advance(ids)).pipe(Effect.provide(layer))
  const advanceAll = Effect.flatMap(IncidentAutomation, (automation) => automation.advanceAll).pipe(
    Effect.provide(layer)
  )
  /** After `duration`, the monitors enter `state` (as ingest leaves them), and a pass runs for them. */
  const after = (duration: Duration.Input, state: MonitorState, ...ids: Array<string>) =>
    Effect.andThen(TestClock.adjust(duration), Clock.currentTimeMillis).pipe(
      Effect.map((now) => ids.forEach((id) => Object.assign(monitors[id]!, { state, stateChangedAt: now }))),
      Effect.andThen(advance(...ids))
    )
  const of = (monitorId: string) => incidents.filter((i) => i.monitorId === monitorId)

  return { incidents, findings, offline, warnings, hooks, insert, advance, advanceAll, after, of }
}

const finding = (region: string, at: number, lastOk: boolean, statusCode: number | null, lastError: string | null) =>
  new FindingRow({ region, lastScheduledAt: new Date(at), lastOk, lastStatusCode: statusCode, lastError })

describe("IncidentAutomation", () => {
  it.effect("an outage opens one incident, with the evidence of the regions that count, once per outage", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const since = t0 - 30 * second
      const w = world({
        a: { stateChangedAt: since },
        b: { stateChangedAt: since, componentId: "web", policy: "draft", templateId: "tpl" },
        off: { policy: "off" }
      })
      const recent = t0 - 20 * second
      w.findings.set("a", [
        finding("us", recent, false, null, "connect ETIMEDOUT 203.0.113.9:443"),
        finding("eu", recent, false, 503, "expected status 200, got 503"),
        finding("ap", recent, true, 200, null),
        finding("sa", t0 - 10 * minute, false, 503, null), // no longer reporting
        finding("af", recent, false, 503, null) // its probes are all silent
      ])
      w.offline.add("af")
      yield* w.advanceAll
      expect(w.incidents).toMatchObject([
        { monitorId: "a", title: "API is down", severity: "major", published: true, downSince: since },
        { monitorId: "b", title: "Checkout is failing", severity: "critical", published: false }
      ])
      expect(w.incidents.map((i) => i.updates)).toEqual([
        [{
          status: "investigating",
          message: "Our checks fail from 2 of 3 regions: eu (HTTP 503) and us (timed out). We are investigating."
        }],
        [{ status: "investigating", message: "We know.\n\nOur checks fail. We are investigating." }]
      ])
      // An operator resolves it while the monitor is still down: that outage opens no other.
      Object.assign(w.incidents[0]!, { status: "resolved", automation: "handed_over" })
      yield* w.advanceAll
      yield* w.advance("a")
      expect(w.of("a")).toHaveLength(1)
      // Its next outage does.
      yield* w.after("5 minutes", "up", "a")
      yield* w.after("1 minute", "down", "a")
      expect(w.of("a").map((i) => i.downSince)).toEqual([since, t0 + 6 * minute])
    }))

  it.effect("recovery is told at once, a flap brings the incident back, an untold one restarts the wait; 0 resolves at once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const w = world({ a: {}, b: { resolveAfterSeconds: 0 } })
      yield* w.advance("a", "b")
      yield* w.after("1 minute", "up", "a", "b")
      expect(w.of("b")[0]!.updates.slice(1)).toEqual([
        { status: "monitoring", message: "Our checks succeed again. We are monitoring the recovery." },
        { status: "resolved", message: "Our checks succeed again. This incident is resolved." }
      ])
      expect(w.incidents[0]).toMatchObject({ status: "monitoring", upSince: t0 + minute })
      // The first relapse is told at once.
      yield* w.after("299 seconds", "down", "a")
      expect(w.incidents[0]).toMatchObject({ status: "investigating", relapses: 1, upSince: null })
      expect(w.incidents[0]!.updates[2]!.message).toBe("The problem is back. Our checks fail. We are investigating.")
      yield* w.after("10 seconds", "up", "a")
      const backAt = yield* Clock.currentTimeMillis
      // A later one, within 5 minutes of the last update, is not told; once over, the wait starts again.
      yield* w.after("1 minute", "down", "a")
      yield* w.after("30 seconds", "up", "a")
      expect(w.incidents[0]).toMatchObject({ status: "monitoring", relapses: 1, upSince: backAt + 90 * second })
      yield* TestClock.adjust("299 seconds")
      yield* w.advanceAll
      expect(w.incidents[0]!.status).toBe("monitoring")
      yield* TestClock.adjust("1 second")
      yield* w.advanceAll
      expect(w.incidents[0]!.updates.map((u) => u.status).join()).toBe(
        "investigating,monitoring,investigating,monitoring,resolved"
      )
      expect(w.incidents[0]!.updates[4]!.message).toBe(
        "Our checks have succeeded for 5 minutes. This incident is resolved."
      )
    }))

  it.effect("each step is decided again under the monitor's lock; one monitor's failure leaves the others' steps", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const w = world({ a: {}, b: {}, c: {} })
      // Another instance opens a's incident between this pass's read and its lock; b's connection is lost.
      w.hooks.beforeLock = (id) => {
        if (id === "b") throw new Error("connection lost")
        if (id === "a" && w.of("a").length === 0) {
          w.insert({ monitorId: "a", title: "opened elsewhere", severity: "major", published: true }, t0)
        }
      }
      yield* w.advance("a", "b", "c")
      expect(w.incidents.map((i) => [i.monitorId, i.title])).toEqual([["a", "opened elsewhere"], ["c", "API is down"]])
      expect(w.warnings).toEqual([
        { message: "Automatic incidents: a monitor's step failed; retried on the next pass", monitorId: "b" }
      ])
      // The next pass takes it up.
      w.hooks.beforeLock = () => {}
      yield* w.advanceAll
      expect(w.incidents.map((i) => i.monitorId)).toEqual(["a", "c", "b"])
    }))
})
