/**
 * What a batch of probe reports decides in ResultIngest, without PostgreSQL, on the TestClock:
 * only admitted reports are stored, once each (a redelivered batch moves nothing), the others are
 * counted by reason and logged once a minute per probe; region streaks advance and a quorum of
 * them moves the monitor (down dated from when the quorum held, up closing its downtime); a
 * region whose probes are all silent is no data; the components handed to ComponentStatuses are
 * those of a transition and those out of line with their monitors (never one an operator set);
 * the automation is run for the monitors that moved. The repositories are in memory and keep
 * what their statements keep: a (job, region) stores a result or a miss once (a result replaces
 * a miss), paused monitors are not locked, one open downtime per monitor. The pure rules alone:
 * test/domain/quorum, quorumModes and resultAdmission. The same on PostgreSQL:
 * test/workers/ingest.test.ts, test/monitoring/forgedResults.test.ts (refusals) and
 * probeRegistry.test.ts (an offline region left out of quorum).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { MissedCheck, type ProbeReport } from "../../src/domain/CheckJob.js"
import type { ComponentId } from "../../src/domain/Component.js"
import { advanceRegion, type MonitorState, type RegionStatus } from "../../src/domain/Quorum.js"
import { CheckResultsRepo } from "../../src/persistence/CheckResultsRepo.js"
import type { StatusSourceRow } from "../../src/persistence/ComponentStatusRepo.js"
import { orUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { MonitorStateRepo } from "../../src/persistence/MonitorStateRepo.js"
import { AuditTrail } from "../../src/services/audit/AuditTrail.js"
import { ComponentStatuses } from "../../src/services/catalog/ComponentStatuses.js"
import { IncidentAutomation } from "../../src/services/monitoring/IncidentAutomation.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { StateChanges, type Touched } from "../../src/services/StateChanges.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import { makeTestLayer } from "../support/TestLayer.js"

const t0 = Date.parse("2025-01-01T03:00:00Z")
const minute = 60_000
const keyOf = (run: { jobId: string; region: string }) => `${run.jobId}|${run.region}`

/** Monitors (of `api`, up, unless they say otherwise) checked every minute in every region, down after 2 failures. */
const world = (
  given: Record<string, { componentId?: string; state?: MonitorState; paused?: boolean }>,
  components: Record<string, Pick<StatusSourceRow, "status" | "statusSetBy">> = {
    api: { status: "operational", statusSetBy: "monitors" }
  }
) => {
  const monitors = Object.fromEntries(
    Object.entries(given).map(([id, m]) => [id, { componentId: "api", state: "up" as MonitorState, ...m }])
  )
  const regionStates = new Map<string, Map<string, RegionStatus>>()
  const results = new Set<string>()
  const misses = new Set<string>()
  const downtime: Array<{ monitorId: string; startedAt: number; endedAt: number | null }> = []
  const offline = new Set<string>()
  const handed: Array<string> = []
  const advanced: Array<ReadonlyArray<string>> = []
  const refusals: Array<{ region: unknown; probe: unknown; counts: unknown }> = []
  let commits = 0
  const announced: Array<Touched> = []

  const monitorState = makeTestLayer(MonitorStateRepo)({
    // Paused monitors are not locked: their reports are refused as a deleted monitor's.
    lockForIngest: (ids) =>
      Effect.sync(() => {
        const locked = ids.filter((id) => id in monitors && monitors[id]!.paused !== true).sort()
        const componentOf = (id: string) => monitors[id]!.componentId as ComponentId
        return {
          monitors: locked.map((id) => ({
            id,
            componentId: componentOf(id),
            state: monitors[id]!.state,
            intervalSeconds: 60,
            failureThreshold: 2,
            regions: null,
            quorum: "majority" as const,
            degradedAboveMs: null,
            createdAt: t0 - 60 * minute,
            resumedAt: null,
            regionStatuses: [...(regionStates.get(id)?.values() ?? [])]
          })),
          components: [...new Set(locked.map(componentOf))].map((id) => ({
            id,
            name: id,
            ...components[id]!,
            monitors: Object.keys(monitors).filter((m) => componentOf(m) === id).map((m) =>
              [m, monitors[m]!.state] as const
            )
          }))
        }
      }),
    saveRegionStatuses: (statuses) =>
      Effect.sync(() => {
        for (const { monitorId, status } of statuses) {
          regionStates.set(monitorId, (regionStates.get(monitorId) ?? new Map()).set(status.region, status))
        }
      }),
    // A down opens a downtime unless one is open; up or degraded closes it, never before it started.
    applyTransitions: (downs, ups, now) =>
      Effect.sync(() => {
        for (const { monitor, since } of downs) {
          Object.assign(monitors[monitor.id]!, { state: "down", stateChangedAt: now })
          if (!downtime.some((d) => d.monitorId === monitor.id && d.endedAt === null)) {
            downtime.push({ monitorId: monitor.id, startedAt: since, endedAt: null })
          }
        }
        for (const { at, monitor, state } of ups) {
          Object.assign(monitors[monitor.id]!, { state: state ?? "up", stateChangedAt: now })
          for (const d of downtime) {
            if (d.monitorId === monitor.id && d.endedAt === null) d.endedAt = Math.max(d.startedAt, at)
          }
        }
      })
  })

  // One result or one miss per (job, region): a result not stored yet replaces a miss; a miss is
  // stored only beside neither.
  const checkResults = makeTestLayer(CheckResultsRepo)({
    storeResults: (batch) =>
      Effect.sync(() =>
        batch.filter((r) => !results.has(keyOf(r))).map((r) => {
          results.add(keyOf(r))
          misses.delete(keyOf(r))
          return { jobId: r.jobId, region: r.region }
        })
      ),
    insertMisses: (batch) =>
      Effect.sync(() =>
        batch.filter((m) => !results.has(keyOf(m)) && !misses.has(keyOf(m))).map((m) => {
          misses.add(keyOf(m))
          return { jobId: m.jobId, region: m.region }
        })
      )
  })

  const capture = Logger.make((options) => {
    const { probe, refused, region } = logAnnotations(options)
    if (refused !== undefined) refusals.push({ region, probe, counts: JSON.parse(String(refused)) })
  })

  const layer = Layer.mergeAll(
    ResultIngest.layerWithoutDependencies.pipe(Layer.provide([
      monitorState,
      checkResults,
      // Whether a component moves is ComponentStatuses' own rule (componentStatuses.unit.test.ts):
      // here, every one handed over moves, each in a commit of its own.
      makeTestLayer(ComponentStatuses)({
        outOfLineWithMonitors: (ids) =>
          Effect.sync(() => {
            handed.push(...ids)
            return [...ids]
          }),
        followMonitors: () => Effect.void
      }),
      makeTestLayer(StateChanges)({
        commit: (change) =>
          Effect.suspend(() => {
            commits++
            return orUnavailable(change)
          }),
        announce: (touched) => Effect.sync(() => void announced.push(touched))
      }),
      makeTestLayer(ProbeRegistry)({ offlineRegions: () => Effect.succeed(offline) }),
      // Audit entries are the integration tests' (test/audit).
      makeTestLayer(AuditTrail)({ record: () => Effect.void }),
      makeTestLayer(IncidentAutomation)({ advance: (ids) => Effect.sync(() => void advanced.push(ids)) }),
      // Ingest takes the client for its transaction only: the body runs as it is.
      makeTestLayer(SqlClient.SqlClient)({
        transactionService: SqlClient.TransactionConnection(-1),
        withTransaction: (effect) => effect
      }),
      ConfigProvider.layer(ConfigProvider.fromUnknown({}))
    ])),
    replaceDefaultLogger(capture)
  )

  /** Runs `f` with one ingest instance, as a worker holds it. */
  const run = <A, E>(f: (ingest: ResultIngest["Service"]["ingest"]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      return yield* f((yield* ResultIngest).ingest)
    }).pipe(Effect.provide(layer))

  return {
    monitors,
    regionStates,
    downtime,
    offline,
    handed,
    advanced,
    refusals,
    commits: () => commits,
    announced: () => announced,
    run
  }
}

/** What a region of the monitor keeps after these checks (`advanceRegion`, as ingest applies it). */
const region = (monitorId: string, name: string, checks: ReadonlyArray<readonly [at: number, ok: boolean]>) =>
  [
    name,
    checks.reduce<RegionStatus | undefined>(
      (s, [at, ok]) => advanceRegion(s, checkResult(monitorId, name, at, ok)),
      undefined
    )!
  ] as const

/** A run of `m1` in each region, failing in those named. */
const runs = (at: number, failing: ReadonlyArray<string>) =>
  ["eu", "us", "ap"].map((region) => checkResult("m1", region, at, !failing.includes(region)))

describe("ResultIngest", () => {
  it.effect("stores each run once, counts and logs what it refuses, and a quorum of streaks takes a monitor down", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const w = world({ m1: {}, paused: { paused: true } })
      const s2 = slotOf("m1", t0)
      const s1 = s2 - minute
      // A miss of a run whose result is in the batch.
      const { jobId, monitorId, probe, region } = checkResult("m1", "ap", s1, true)
      const batch: Array<ProbeReport> = [
        ...runs(s1, ["eu", "us"]),
        ...runs(s2, ["eu", "us"]),
        checkResult("m1", "eu", s2, false), // twice in the batch
        checkResult("m1", "eu", s2 + 1, false), // not a run the scheduler publishes
        checkResult("paused", "eu", slotOf("paused", t0), false),
        new MissedCheck({ jobId, monitorId, region, probe, scheduledAt: s1, recordedAt: t0, reason: "late" })
      ]
      yield* w.run((ingest) =>
        Effect.gen(function*() {
          yield* ingest(batch)
          const eu = { consecutiveFailures: 2, failingSince: s1, lastScheduledAt: s2 }
          expect(w.regionStates.get("m1")?.get("eu")).toMatchObject(eu)
          expect(w.monitors.m1).toMatchObject({ state: "down", stateChangedAt: t0 })
          expect(w.downtime).toEqual([{ monitorId: "m1", startedAt: s1, endedAt: null }])
          expect([w.handed, w.commits(), w.advanced]).toEqual([["api"], 1, [["m1"]]])
          // A transition is announced to the admin side's live stream.
          expect(w.announced()).toEqual([{ monitors: true }])
          // Refusals are logged a minute after the first, one line per probe.
          expect(w.refusals).toEqual([])
          yield* TestClock.adjust("1 minute")
          expect(w.refusals).toEqual([
            { region: "eu", probe: "eu-1", counts: { duplicate: 1, off_schedule: 1, unknown_monitor: 1 } },
            { region: "ap", probe: "ap-1", counts: { duplicate: 1 } }
          ])
          // Delivered again: every run is stored already, and nothing moves.
          yield* ingest(batch)
          yield* TestClock.adjust("1 minute")
          expect(w.refusals.slice(2)).toEqual([
            { region: "eu", probe: "eu-1", counts: { duplicate: 3, off_schedule: 1, unknown_monitor: 1 } },
            { region: "us", probe: "us-1", counts: { duplicate: 2 } },
            { region: "ap", probe: "ap-1", counts: { duplicate: 3 } }
          ])
        })
      )
      expect(w.regionStates.get("m1")?.get("eu")?.consecutiveFailures).toBe(2)
      expect([w.downtime.length, w.handed, w.commits(), w.advanced]).toEqual([1, ["api"], 1, [["m1"]]])
    }))

  it.effect("up closes the downtime; components out of line are handed over without a transition, an operator's never", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const s2 = slotOf("m1", t0)
      const s1 = s2 - minute
      const w = world({
        m1: { state: "down" },
        // Down already, its component not moved yet (a move an earlier batch did not finish).
        m2: { componentId: "db", state: "down" },
        m3: { componentId: "web", state: "up" }
      }, {
        api: { status: "major_outage", statusSetBy: "monitors" },
        db: { status: "operational", statusSetBy: "monitors" },
        web: { status: "major_outage", statusSetBy: "operator" }
      })
      const since = s1 - minute
      const failed = [[since, false], [s1, false]] as const
      w.regionStates.set("m1", new Map([region("m1", "eu", failed), region("m1", "us", failed)]))
      w.downtime.push({ monitorId: "m1", startedAt: since, endedAt: null })
      w.regionStates.set("m2", new Map([region("m2", "eu", [[slotOf("m2", t0) - minute, false]])]))
      yield* w.run((ingest) =>
        ingest([
          checkResult("m1", "eu", s2, true),
          checkResult("m1", "us", s2, true),
          checkResult("m2", "eu", slotOf("m2", t0), false),
          checkResult("m3", "eu", slotOf("m3", t0), true)
        ])
      )
      expect(w.monitors.m1).toMatchObject({ state: "up", stateChangedAt: t0 })
      expect(w.downtime).toEqual([{ monitorId: "m1", startedAt: since, endedAt: s2 }])
      expect(w.monitors.m2!.state).toBe("down")
      expect(w.regionStates.get("m2")?.get("eu")?.consecutiveFailures).toBe(2)
      expect([...w.handed].sort()).toEqual(["api", "db"])
      expect(w.advanced).toEqual([["m1"]])
    }))

  it.effect("a region whose probes are all silent is no data: its failures count again once it is heard from", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const w = world({ m1: {} })
      const s2 = slotOf("m1", t0)
      const s1 = s2 - minute
      w.offline.add("ap")
      yield* w.run((ingest) =>
        Effect.gen(function*() {
          yield* ingest([...runs(s1, ["eu", "ap"]), ...runs(s2, ["eu", "ap"])])
          expect(w.monitors.m1!.state).toBe("up")
          expect([w.downtime, w.handed, w.commits(), w.advanced]).toEqual([[], [], 0, []])
          expect(w.announced()).toEqual([])
          w.offline.clear()
          yield* TestClock.adjust("1 minute")
          yield* ingest(runs(s2 + minute, ["eu", "ap"]))
        })
      )
      expect(w.monitors.m1!.state).toBe("down")
      expect(w.downtime).toEqual([{ monitorId: "m1", startedAt: s1, endedAt: null }])
      expect([w.handed, w.advanced]).toEqual([["api"], [["m1"]]])
    }))
})
