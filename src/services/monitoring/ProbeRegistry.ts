/**
 * The probe registry: every probe that sent a heartbeat, keyed (region, name), with when the
 * server last heard from it (docs/monitor-fleet.md, "Probe registry"). A probe is online while
 * its last heartbeat is at most `offlineAfter` old by the server's clock: a probe's own clock may
 * be wrong. A region the registry knows with no online probe is offline, and quorum treats it
 * as "no data"; a region that never sent a heartbeat is not in the registry, so the results of
 * probes that send none count as before.
 *
 * The registry is bounded: at most `maxProbesPerRegion` probes per region, and `list` answers at
 * most `maxProbesListed` of them. A region sending more names cannot grow it, nor crowd out
 * another region's probes.
 */
import { Cause, Clock, Context, DateTime, Duration, Effect, Exit, Layer, Ref } from "effect"

import type { BadRequest, ServiceUnavailable } from "../../domain/Errors.js"
import type { Page, PageRequest } from "../../domain/Page.js"
import { ProbeView } from "../../domain/Probe.js"
import { offlineAfter, type ProbeHeartbeat } from "../../domain/ProbeHeartbeat.js"
import { type ProbeRecord, type ProbeRow, ProbesRepo } from "../../persistence/ProbesRepo.js"

export interface RegionHeartbeat {
  /** The region of the results stream the heartbeat came on. */
  readonly region: string
  readonly heartbeat: ProbeHeartbeat
}

/**
 * Probes kept per region. A heartbeat of a new name in a full region takes the place of the
 * region's probe silent the longest, if that one is offline; else it is refused (and logged).
 */
export const maxProbesPerRegion = 200

/** Probes `list` answers at most, by region then name. */
export const maxProbesListed = 5_000

/**
 * How long `offlineRegions` answers from memory at most (ingest asks once per batch): what it
 * cannot know without reading, another instance's heartbeat bringing a region back, is seen
 * this late at worst.
 */
export const offlineRegionsCacheTtl = Duration.seconds(5)

/** Whether `next` replaces `current` for one probe: another run of it, or a later heartbeat of the same run. */
const supersedes = (next: ProbeHeartbeat, current: ProbeHeartbeat) =>
  next.startedAt !== current.startedAt || next.sentAt > current.sentAt

/** Logs what the cap of a region did to new names: a few of them, and how many. */
const logBounded = (region: string, replaced: ReadonlyArray<string>, refused: ReadonlyArray<string>) =>
  Effect.all([
    replaced.length === 0 ?
      Effect.void :
      Effect.logInfo("probe registry full: offline probes replaced by new ones").pipe(
        Effect.annotateLogs({ region, probes: replaced.slice(0, 10).join(" "), count: replaced.length })
      ),
    refused.length === 0 ? Effect.void : Effect.logWarning(
      "probe registry full: heartbeats of new probes refused, every probe of the region is online"
    ).pipe(
      Effect.annotateLogs({ region, probes: refused.slice(0, 10).join(" "), count: refused.length, maxProbesPerRegion })
    )
  ], { discard: true })

/** What the API shows of a probe, `online` by the server's clock at `now`. */
const viewOf = (row: ProbeRow, now: number) =>
  new ProbeView({
    name: row.name,
    region: row.region,
    version: row.version,
    startedAt: DateTime.fromDateUnsafe(row.startedAt),
    lastSeenAt: DateTime.fromDateUnsafe(row.lastSeenAt),
    online: now - row.lastSeenAt.getTime() <= offlineAfter,
    checksLastMinute: row.checksLastMinute,
    concurrency: row.concurrency,
    lagMs: row.lagMs,
    inFlight: row.inFlight
  })

export class ProbeRegistry extends Context.Service<ProbeRegistry>()("ProbeRegistry", {
  make: Effect.gen(function*() {
    const repo = yield* ProbesRepo

    // The last answer and until when it holds: the cache period, or until an online region's
    // latest heartbeat gets older than `offlineAfter`, whichever comes first. So a region turns
    // offline in the answer at the millisecond it should, without a read each second. A caller
    // that finds it stale reads again itself, in its own transaction, rather than waiting for
    // another fiber's read: on the embedded database one session serves every connection, so an
    // ingest transaction waiting for a read that waits for the session would wait forever.
    const lastOffline = yield* Ref.make<
      { readonly validUntil: number; readonly regions: ReadonlySet<string> } | undefined
    >(undefined)
    const offlineTtl = Duration.toMillis(offlineRegionsCacheTtl)
    // Each batch of stored heartbeats is numbered, and each region keeps the number of its last:
    // a read under way when a region was heard from may have found it silent, and must neither
    // answer nor keep that for the cache period.
    let heardBatches = 0
    const lastHeardBatch = new Map<string, number>()
    const readOffline = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const last = yield* Ref.get(lastOffline)
      if (last !== undefined && now < last.validUntil) return last.regions
      const readAfter = heardBatches
      const regions = new Set<string>()
      let validUntil = now + offlineTtl
      for (const { lastSeenAt, region } of yield* repo.lastSeenByRegion()) {
        // Offline once silent for more than `offlineAfter`: from this millisecond on.
        const offlineFrom = lastSeenAt.getTime() + offlineAfter + 1
        if (offlineFrom <= now) regions.add(region)
        else validUntil = Math.min(validUntil, offlineFrom)
      }
      for (const region of regions) if ((lastHeardBatch.get(region) ?? 0) > readAfter) regions.delete(region)
      yield* Ref.set(lastOffline, { validUntil, regions })
      return regions as ReadonlySet<string>
    })
    /** Heartbeats of these regions were stored: an answer that held one of them offline is read again. */
    const heardFrom = (regions: ReadonlyArray<string>) =>
      Effect.suspend(() => {
        heardBatches += 1
        for (const region of regions) lastHeardBatch.set(region, heardBatches)
        return Ref.update(lastOffline, (last) =>
          last !== undefined && regions.some((region) => last.regions.has(region)) ? undefined : last)
      })

    return {
      /**
       * Stores a batch of heartbeats, seen now by the server's clock, one region at a time: a
       * region whose heartbeats cannot be stored is logged and the other regions are stored all
       * the same. Of several heartbeats of one probe in the batch, the latest counts. Fails only
       * when no region could be stored (the database is away).
       */
      recordHeartbeats: (beats: ReadonlyArray<RegionHeartbeat>): Effect.Effect<void, ServiceUnavailable> =>
        Effect.gen(function*() {
          if (beats.length === 0) return
          const byRegion = new Map<string, Map<string, ProbeHeartbeat>>()
          for (const { heartbeat, region } of beats) {
            let latest = byRegion.get(region)
            if (latest === undefined) {
              latest = new Map()
              byRegion.set(region, latest)
            }
            const current = latest.get(heartbeat.name)
            if (current === undefined || supersedes(heartbeat, current)) latest.set(heartbeat.name, heartbeat)
          }
          const now = yield* Clock.currentTimeMillis
          const bounds = { maxProbes: maxProbesPerRegion, offlineBefore: new Date(now - offlineAfter) }
          const outcomes = yield* Effect.forEach(byRegion, ([region, latest]) =>
            repo.recordRegion(
              region,
              [...latest.values()].map((heartbeat): ProbeRecord => ({
                region,
                name: heartbeat.name,
                version: heartbeat.version,
                startedAt: heartbeat.startedAt,
                sentAt: heartbeat.sentAt,
                lastSeenAt: now,
                concurrency: heartbeat.concurrency,
                checksLastMinute: heartbeat.checksLastMinute,
                lagMs: heartbeat.lagMs,
                inFlight: heartbeat.inFlight
              })),
              bounds
            ).pipe(
              Effect.tap(({ refused, replaced }) => logBounded(region, replaced, refused)),
              Effect.exit,
              Effect.map((exit) => ({ region, exit }))
            ))
          // A region that just came back counts at once, not a cache period later. Heartbeats of
          // online regions change nothing in the answer: it stays.
          yield* heardFrom(outcomes.flatMap(({ exit, region }) => Exit.isSuccess(exit) ? [region] : []))
          const failed = outcomes.flatMap(({ exit, region }) =>
            Exit.isFailure(exit) ? [{ region, cause: exit.cause }] : []
          )
          // Nothing stored at all (the database is away): the caller hears of it.
          if (failed.length > 0 && failed.length === outcomes.length) return yield* Effect.failCause(failed[0]!.cause)
          for (const { cause, region } of failed) {
            if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(cause)
            yield* Effect.logWarning("storing a region's probe heartbeats failed", cause).pipe(
              Effect.annotateLogs({ region })
            )
          }
        }).pipe(Effect.withSpan("ProbeRegistry.recordHeartbeats", { attributes: { heartbeats: beats.length } })),

      /** The probes, by region then name (at most `maxProbesListed`), with `online` by the server's clock now. */
      list: (): Effect.Effect<ReadonlyArray<ProbeView>, ServiceUnavailable> =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const rows = yield* repo.list(maxProbesListed)
          return rows.map((row) => viewOf(row, now))
        }).pipe(Effect.withSpan("ProbeRegistry.list")),

      /** A page of the probes, in the same order. */
      listPage: (page: PageRequest): Effect.Effect<Page<ProbeView>, BadRequest | ServiceUnavailable> =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const found = yield* repo.listPage(page)
          return { ...found, items: found.items.map((row) => viewOf(row, now)) }
        }).pipe(Effect.withSpan("ProbeRegistry.listPage")),

      /**
       * The regions the registry knows whose probes have all been silent for more than
       * `offlineAfter`. Answered from memory for up to `offlineRegionsCacheTtl`.
       */
      offlineRegions: (): Effect.Effect<ReadonlySet<string>, ServiceUnavailable> => readOffline
    } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(ProbesRepo.layer))
}
