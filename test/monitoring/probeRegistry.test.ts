/**
 * The probe registry on a real database and the suite's TestClock: a heartbeat makes a probe
 * online, 30 s of silence offline; a region whose probes are all silent is offline, one never
 * seen is not; a restart updates the probe's row; a late duplicate changes nothing; ingest leaves
 * an offline region out of quorum; housekeeping forgets probes silent for 7 days. A heartbeat
 * whose name or version PostgreSQL would refuse does not decode; a region holds at most
 * `maxProbesPerRegion` probes, so a flood of names cannot grow it or touch another region; one
 * region's heartbeats failing does not lose another's; a region heard from while a read of the
 * offline regions is under way counts at once.
 */
import { expect, it } from "@effect/vitest"
import { Clock, DateTime, Deferred, Duration, Effect, Fiber, Layer, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { forgetProbeAfter } from "../../src/domain/Probe.js"
import { offlineAfter, ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { slotAt } from "../../src/domain/Slots.js"
import { ProbesRepo } from "../../src/persistence/ProbesRepo.js"
import {
  maxProbesPerRegion,
  offlineRegionsCacheTtl,
  ProbeRegistry
} from "../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { Housekeeping, housekeepingInterval } from "../../src/workers/Housekeeping.js"
import { checkResult } from "../support/CheckResults.js"
import { asleepUntil, eventually } from "../support/Eventually.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

/** A heartbeat of `name` sent now (by the TestClock), started `startedAt`. */
const beat = (region: string, name: string, fields: Partial<ConstructorParameters<typeof ProbeHeartbeat>[0]> = {}) =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    region,
    heartbeat: new ProbeHeartbeat({
      name,
      version: "1.4.0",
      startedAt: now - 60_000,
      sentAt: now,
      concurrency: 8,
      checksLastMinute: 42,
      lagMs: 12,
      inFlight: 3,
      ...fields
    })
  }))

const probe = (region: string, name: string) =>
  Effect.flatMap(
    ProbeRegistry,
    (registry) => Effect.map(registry.list(), (probes) => probes.find((p) => p.region === region && p.name === name))
  )

/** The probes of `region` the registry lists, by name. */
const probesOf = (region: string) =>
  Effect.flatMap(
    ProbeRegistry,
    (registry) => Effect.map(registry.list(), (probes) => probes.filter((p) => p.region === region))
  )

/** `count` names `<prefix>-<n>`. */
const names = (prefix: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${from + i}`)

/** Waits past the offlineRegions cache so the next read is fresh. */
const pastCache = TestClock.adjust(Duration.sum(offlineRegionsCacheTtl, Duration.seconds(1)))

it.layer(ProbeRegistry.layer.pipe(Layer.provideMerge(TestServer())))("probe registry", (it) => {
  it.effect("a heartbeat makes a probe online, by the server's clock; 30 s of silence makes it offline", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      const received = yield* Clock.currentTimeMillis
      // The probe's clock is an hour behind: lastSeenAt is the server's time, not sentAt.
      const wrongClock = yield* beat("online-test", "p1", { sentAt: received - 3_600_000 })
      yield* registry.recordHeartbeats([wrongClock])

      const seen = yield* probe("online-test", "p1")
      expect(seen).toMatchObject({
        name: "p1",
        region: "online-test",
        version: "1.4.0",
        online: true,
        checksLastMinute: 42,
        concurrency: 8,
        lagMs: 12,
        inFlight: 3
      })
      expect(DateTime.toEpochMillis(seen!.lastSeenAt)).toBe(received)
      expect(DateTime.toEpochMillis(seen!.startedAt)).toBe(wrongClock.heartbeat.startedAt)

      yield* TestClock.adjust(Duration.millis(offlineAfter))
      expect((yield* probe("online-test", "p1"))?.online).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect((yield* probe("online-test", "p1"))?.online).toBe(false)

      // The next heartbeat brings it back.
      yield* registry.recordHeartbeats([yield* beat("online-test", "p1")])
      expect((yield* probe("online-test", "p1"))?.online).toBe(true)
    }))

  it.effect("offlineRegions: regions whose every probe is silent; unknown regions are never offline", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      yield* registry.recordHeartbeats([
        yield* beat("offline-a", "a1"),
        yield* beat("offline-a", "a2"),
        yield* beat("offline-b", "b1")
      ])
      yield* pastCache
      let offline = yield* registry.offlineRegions()
      expect(offline.has("offline-a")).toBe(false)
      expect(offline.has("offline-b")).toBe(false)

      // 20 s later only a2 and b1 speak; 15 s after that a1 is silent past 30 s, a2 is not.
      yield* TestClock.adjust("20 seconds")
      yield* registry.recordHeartbeats([yield* beat("offline-a", "a2")])
      yield* TestClock.adjust("15 seconds")
      offline = yield* registry.offlineRegions()
      expect(offline.has("offline-a")).toBe(false)
      expect(offline.has("offline-b")).toBe(true)
      expect(offline.has("never-seen")).toBe(false)

      // Every probe of offline-a silent: the region is offline, until one speaks again (at once,
      // not a cache period later).
      yield* TestClock.adjust("30 seconds")
      offline = yield* registry.offlineRegions()
      expect(offline.has("offline-a")).toBe(true)
      yield* registry.recordHeartbeats([yield* beat("offline-a", "a1")])
      offline = yield* registry.offlineRegions()
      expect(offline.has("offline-a")).toBe(false)
      expect(offline.has("offline-b")).toBe(true)
    }))

  it.effect("a restart under the same name updates the row; an older heartbeat delivered late changes nothing", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      const first = yield* beat("restart", "r1", { version: "1.0.0", checksLastMinute: 100 })
      yield* registry.recordHeartbeats([first])
      yield* TestClock.adjust("10 seconds")
      const second = yield* beat("restart", "r1", { version: "1.0.0", checksLastMinute: 110 })
      yield* registry.recordHeartbeats([second])

      // The probe restarts on a new version: one row, the new run's figures.
      yield* TestClock.adjust("5 seconds")
      const restartedAt = yield* Clock.currentTimeMillis
      const restarted = yield* beat("restart", "r1", { version: "1.1.0", startedAt: restartedAt, checksLastMinute: 0 })
      yield* registry.recordHeartbeats([restarted])
      const probes = (yield* registry.list()).filter((p) => p.region === "restart")
      expect(probes).toHaveLength(1)
      expect(probes[0]).toMatchObject({ name: "r1", version: "1.1.0", checksLastMinute: 0, online: true })
      expect(DateTime.toEpochMillis(probes[0]!.startedAt)).toBe(restartedAt)

      // The new run's second heartbeat, then its first delivered again late (a claimed batch).
      yield* TestClock.adjust("10 seconds")
      const later = yield* beat("restart", "r1", { version: "1.1.0", startedAt: restartedAt, checksLastMinute: 7 })
      yield* registry.recordHeartbeats([later])
      const seenAt = DateTime.toEpochMillis((yield* probe("restart", "r1"))!.lastSeenAt)
      yield* TestClock.adjust("25 seconds")
      yield* registry.recordHeartbeats([restarted])
      const after = yield* probe("restart", "r1")
      expect(after?.checksLastMinute).toBe(7)
      expect(DateTime.toEpochMillis(after!.lastSeenAt)).toBe(seenAt)
      yield* TestClock.adjust("6 seconds")
      expect((yield* probe("restart", "r1"))?.online).toBe(false)
    }))

  it.effect("one batch with several heartbeats of a probe keeps the latest", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      const now = yield* Clock.currentTimeMillis
      const older = yield* beat("batch", "b1", { sentAt: now - 10_000, checksLastMinute: 1 })
      const newer = yield* beat("batch", "b1", { sentAt: now, checksLastMinute: 2 })
      yield* registry.recordHeartbeats([newer, older, yield* beat("batch", "b2"), yield* beat("batch-other", "b1")])
      const probes = (yield* registry.list()).filter((p) => p.region.startsWith("batch"))
      expect(probes.map((p) => `${p.region}/${p.name}/${p.checksLastMinute}`)).toEqual([
        "batch/b1/2",
        "batch/b2/42",
        "batch-other/b1/42"
      ])
    }))

  it.effect("figures beyond the columns' range are stored at their limit, not refused", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      yield* registry.recordHeartbeats([
        yield* beat("absurd", "x1", { lagMs: 9_000_000_000_000, checksLastMinute: 2 ** 40, startedAt: 2 ** 53 - 1 })
      ])
      expect(yield* probe("absurd", "x1")).toMatchObject({ lagMs: 2_147_483_647, checksLastMinute: 2_147_483_647 })
    }))

  it("a heartbeat whose name or version PostgreSQL would refuse, or a name out of pattern, does not decode", () => {
    const wire = {
      _tag: "ProbeHeartbeat",
      name: "eu-west-1.probe_2",
      version: "1.4.0",
      startedAt: 1_000,
      sentAt: 2_000,
      concurrency: 8,
      checksLastMinute: 0,
      lagMs: 0,
      inFlight: 0
    }
    const decode = Schema.decodeUnknownResult(ProbeHeartbeat)
    expect(Result.isSuccess(decode(wire))).toBe(true)
    expect(Result.isSuccess(decode({ ...wire, name: "x".repeat(128), version: "v".repeat(64) }))).toBe(true)
    for (
      const bad of [
        { name: "x\u0000" },
        { name: "" },
        { name: "x".repeat(129) },
        { name: "eu west" },
        { name: "eu/west" },
        { name: "é" },
        { version: "1.0\u0000" },
        { version: "\uD800" },
        { version: "v".repeat(65) }
      ]
    ) {
      expect(Result.isFailure(decode({ ...wire, ...bad })), JSON.stringify(bad)).toBe(true)
    }
  })

  it.effect("a flood of new names in one region stops at its cap, and another region's probes stay recorded and online", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      yield* registry.recordHeartbeats([yield* beat("calm", "calm-1"), yield* beat("calm", "calm-2")])
      yield* TestClock.adjust("20 seconds")
      const flood = yield* Effect.forEach(names("fake", 1_000), (name) => beat("flood", name))
      // The flood comes in the same batch as calm's heartbeats, before and after them.
      yield* registry.recordHeartbeats([...flood.slice(0, 500), yield* beat("calm", "calm-1"), ...flood.slice(500)])
      yield* registry.recordHeartbeats([yield* beat("calm", "calm-2")])

      expect((yield* probesOf("flood")).length).toBe(maxProbesPerRegion)
      const calm = yield* probesOf("calm")
      expect(calm.map((p) => `${p.name} ${p.online}`)).toEqual(["calm-1 true", "calm-2 true"])
      // Another flood, every flood probe online: all refused, calm untouched.
      yield* registry.recordHeartbeats(yield* Effect.forEach(names("more", 300), (name) => beat("flood", name)))
      const after = yield* probesOf("flood")
      expect(after.length).toBe(maxProbesPerRegion)
      expect(after.some((p) => p.name.startsWith("more-"))).toBe(false)
      yield* pastCache
      expect((yield* registry.offlineRegions()).has("calm")).toBe(false)
    }))

  it.effect("a full region: a new name replaces the offline probe silent the longest; none offline, it is refused", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      const all = names("full", maxProbesPerRegion)
      const beats = (list: ReadonlyArray<string>) => Effect.forEach(list, (name) => beat("full", name))
      yield* registry.recordHeartbeats(yield* beats(all))
      // full-0 falls silent first, full-1 ten seconds later; the others keep beating.
      yield* TestClock.adjust("10 seconds")
      yield* registry.recordHeartbeats(yield* beats(all.slice(1)))
      yield* TestClock.adjust("10 seconds")
      yield* registry.recordHeartbeats(yield* beats(all.slice(2)))
      // 25 s on: full-0 silent 45 s, full-1 35 s (both offline), the others 25 s (online).
      yield* TestClock.adjust("25 seconds")
      const listed = () => Effect.map(probesOf("full"), (probes) => probes.map((p) => p.name))

      yield* registry.recordHeartbeats([yield* beat("full", "new-a")])
      let now = yield* listed()
      expect(now.length).toBe(maxProbesPerRegion)
      expect(now).toContain("new-a")
      expect(now).not.toContain("full-0")
      expect(now).toContain("full-1")

      yield* registry.recordHeartbeats([yield* beat("full", "new-b"), yield* beat("full", "new-c")])
      now = yield* listed()
      expect(now.length).toBe(maxProbesPerRegion)
      expect(now).not.toContain("full-1")
      expect(now.filter((name) => name === "new-b" || name === "new-c")).toHaveLength(1)

      // A known probe coming back is never refused, full region or not.
      yield* registry.recordHeartbeats([yield* beat("full", "full-5", { checksLastMinute: 99 })])
      expect((yield* probe("full", "full-5"))?.checksLastMinute).toBe(99)
    }))

  it.effect("a region whose heartbeats cannot be stored does not lose the other regions' heartbeats", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      // Ingest's regions match the region pattern and a decoded heartbeat holds nothing PostgreSQL
      // refuses, so this cannot come from a stream: a region with a NUL stands for any failure.
      yield* registry.recordHeartbeats([
        yield* beat("isolated-a", "a1"),
        yield* beat("broken\u0000region", "x1"),
        yield* beat("isolated-b", "b1")
      ])
      expect((yield* probe("isolated-a", "a1"))?.online).toBe(true)
      expect((yield* probe("isolated-b", "b1"))?.online).toBe(true)
      // With nothing stored at all, the caller hears of it.
      const alone = yield* Effect.exit(registry.recordHeartbeats([yield* beat("broken\u0000region", "x1")]))
      expect(alone._tag).toBe("Failure")
    }))

  it.effect("a region turns offline the millisecond its last heartbeat passes 30 s, though answers are kept for 5 s", () =>
    Effect.gen(function*() {
      const registry = yield* ProbeRegistry
      yield* registry.recordHeartbeats([yield* beat("exact", "e1")])
      // Read 1 s before the region goes silent for good: online, and kept in memory.
      yield* TestClock.adjust(Duration.millis(offlineAfter - 1_000))
      expect((yield* registry.offlineRegions()).has("exact")).toBe(false)
      yield* TestClock.adjust("1 second")
      expect((yield* registry.offlineRegions()).has("exact")).toBe(false)
      // Within the cache period, but the kept answer ends where the region's heartbeat gets too old.
      yield* TestClock.adjust("1 millis")
      expect((yield* registry.offlineRegions()).has("exact")).toBe(true)
      // A heartbeat of a region the answer holds offline: read again at once.
      yield* registry.recordHeartbeats([yield* beat("exact", "e1")])
      expect((yield* registry.offlineRegions()).has("exact")).toBe(false)
    }))
})

/** When set, `lastSeenByRegion` tells `read` once it has read, then waits for `release` to answer. */
let held: { readonly read: Deferred.Deferred<void>; readonly release: Deferred.Deferred<void> } | undefined
const HeldReads = Layer.effect(
  ProbesRepo,
  Effect.map(ProbesRepo, (repo) =>
    ProbesRepo.of({
      ...repo,
      lastSeenByRegion: () =>
        Effect.tap(repo.lastSeenByRegion(), () => {
          const hold = held
          return hold === undefined
            ? Effect.void
            : Effect.andThen(Deferred.succeed(hold.read, undefined), Deferred.await(hold.release))
        })
    }))
).pipe(Layer.provide(ProbesRepo.layer))

it.layer(TestServer())(
  "probe registry, a read under way",
  (it) => {
    it.effect("a region heard from while a read that found it silent is under way counts at once", () =>
      Effect.gen(function*() {
        // A registry of its own (the server has one), over the repository whose reads can be held.
        const registry = yield* ProbeRegistry.pipe(
          Effect.provide(ProbeRegistry.layerWithoutDependencies.pipe(Layer.provide(HeldReads)), { local: true })
        )
        yield* registry.recordHeartbeats([yield* beat("comeback", "c1")])
        yield* TestClock.adjust(Duration.millis(offlineAfter + 1))
        // A read finds the region silent; before it answers, the region's heartbeat is stored.
        const hold = { read: yield* Deferred.make<void>(), release: yield* Deferred.make<void>() }
        held = hold
        const reading = yield* Effect.forkChild(registry.offlineRegions())
        yield* Deferred.await(hold.read)
        held = undefined
        yield* registry.recordHeartbeats([yield* beat("comeback", "c1")])
        yield* Deferred.succeed(hold.release, undefined)
        expect((yield* Fiber.join(reading)).has("comeback")).toBe(false)
        // Nor is the read's finding kept for the cache period.
        expect((yield* registry.offlineRegions()).has("comeback")).toBe(false)
      }))
  }
)

it.layer(Housekeeping.pipe(Layer.provideMerge(ProbeRegistry.layer), Layer.provideMerge(TestServer())))(
  "probe registry housekeeping",
  (it) => {
    it.effect("forgets probes silent for 7 days and keeps the others", () =>
      Effect.gen(function*() {
        const registry = yield* ProbeRegistry
        const sql = yield* SqlClient.SqlClient
        yield* registry.recordHeartbeats([yield* beat("kept", "k1"), yield* beat("forgotten", "f1")])
        // The last heartbeat of f1 was 7 days and a minute ago, of k1 6 days ago.
        const now = yield* Clock.currentTimeMillis
        const forgetMillis = Duration.toMillis(forgetProbeAfter)
        yield* sql`update probes set last_seen_at = ${new Date(now - forgetMillis - 60_000)} where name = 'f1'`
        yield* sql`update probes set last_seen_at = ${new Date(now - forgetMillis + 86_400_000)} where name = 'k1'`

        yield* asleepUntil(now + Duration.toMillis(housekeepingInterval)) // the pass at start is over
        yield* TestClock.adjust(housekeepingInterval)
        const names = yield* eventually(
          Effect.map(registry.list(), (probes) => probes.map((p) => p.name)),
          (names) => !names.includes("f1")
        )
        expect(names).toEqual(["k1"])
      }))
  }
)

it.layer(ResultIngest.layer.pipe(Layer.provideMerge(ProbeRegistry.layer), Layer.provideMerge(TestServer())))(
  "probe registry and quorum",
  (it) => {
    it.effect("ingest leaves out a region whose probes are all offline: no data, not a failing region", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const registry = yield* ProbeRegistry
        const ingest = yield* ResultIngest
        const component = yield* client.components.create({ payload: { name: "Seen from two regions" } })
        const monitor = yield* client.monitors.create({
          payload: {
            componentId: component.id,
            type: "http",
            url: "https://example.com",
            failureThreshold: 1,
            regions: ["quorum-a", "quorum-b"]
          }
        })
        const state = Effect.map(
          client.monitors.list({ query: {} }),
          (list) => list.find((m) => m.id === monitor.id)?.state
        )

        // Both regions online: one failure of two is no majority (nor is one success). The clock
        // moves to one of the monitor's slots (every 60 s, shifted by its id): runs are admitted only there.
        const clock = yield* Clock.currentTimeMillis
        const start = slotAt(monitor.id, 60_000, clock + 59_999)
        yield* TestClock.adjust(start - clock)
        yield* registry.recordHeartbeats([yield* beat("quorum-a", "a1"), yield* beat("quorum-b", "b1")])
        yield* ingest.ingest([
          checkResult(monitor.id, "quorum-a", start, false),
          checkResult(monitor.id, "quorum-b", start, true)
        ])
        expect(yield* state).toBe("unknown")

        // A minute on, quorum-b's probes have been silent past 30 s; its last success is still recent
        // (within two intervals) but no longer counts: quorum-a's failure alone decides.
        yield* TestClock.adjust("1 minute")
        yield* registry.recordHeartbeats([yield* beat("quorum-a", "a1")])
        yield* ingest.ingest([checkResult(monitor.id, "quorum-a", start + 60_000, false)])
        expect(yield* state).toBe("down")
      }))
  }
)
