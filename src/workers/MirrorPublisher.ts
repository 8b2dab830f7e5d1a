/**
 * Publishes the public page to the static mirror (MIRROR_S3_URL or MIRROR_DIR; docs/operations.md, "Static mirror"),
 * in the `api` role, one instance at a time (an advisory lock; the others stand by).
 *
 * After every change of what the public sees (bursts coalesce; a monitor's state alone is not
 * one), once a minute (the uptime bars and figures move), and in full at start and every hour (a
 * mirror that was offline or edited by hand catches up, and incidents older than the snapshot
 * holds are written again). Only objects whose bytes changed are written, items before the
 * history pages and the history before the index that links to them; objects of items no longer
 * public are deleted last. A failure is retried with back-off and never blocks a request: readers
 * are answered from the snapshot, whatever the bucket does.
 */
import { Clock, Effect, Layer, Option, PubSub, Schedule } from "effect"

import type { MirrorTarget } from "../domain/MirrorTarget.js"
import { directoryMirrorStore } from "../mirror/DirectoryMirrorStore.js"
import type { Archived, MirrorEntry, Stage } from "../mirror/MirrorObjects.js"
import { MirrorObjects } from "../mirror/MirrorObjects.js"
import type { MirrorStore } from "../mirror/MirrorStore.js"
import { digestOf } from "../mirror/MirrorStore.js"
import { s3MirrorStore } from "../mirror/S3MirrorStore.js"
import { mirrorFailures, mirrorLag, mirrorObjectsDeleted, mirrorObjectsWritten } from "../observability/Metrics.js"
import { holdAdvisoryLock } from "../persistence/AdvisoryLock.js"
import { MirrorConfig } from "../runtime/Config.js"
import { noLabels } from "../runtime/MetricLabels.js"
import { StateChanges, type Touched, touchesPublic } from "../services/StateChanges.js"

const publisherLockKey = 7_311_402_002
const tickMillis = 60_000
const resyncMillis = 3_600_000
const maxBackoffMillis = 60_000
/** A store that does not answer one operation within this fails the publication, which is retried. */
const storeTimeout = "60 seconds"
const stages: ReadonlyArray<Stage> = ["items", "history", "index"]

/** What the next publication must cover: merged from the changes since the last one. */
interface Work {
  /** When the oldest change it covers was announced: the start of the lag it ends. */
  readonly since: number | undefined
  readonly archived: Archived
  readonly incidentsChanged: boolean
  /** List the store first and rewrite what differs from it, not from what was last written. */
  readonly full: boolean
}

const merge = (work: Work, touched: Touched, at: number): Work => ({
  since: work.since ?? at,
  archived: work.archived === "all" || touched.incidents === "all"
    ? "all"
    : new Set([...work.archived, ...(touched.incidents ?? [])]),
  incidentsChanged: work.incidentsChanged || touched.incidents !== undefined,
  full: work.full
})

const nothing: Work = { since: undefined, archived: new Set(), incidentsChanged: false, full: false }
const everything: Work = { since: undefined, archived: "all", incidentsChanged: true, full: true }

const publishing = Effect.fnUntraced(function*(store: MirrorStore) {
  const objects = yield* MirrorObjects
  /** What the store holds, as far as this instance knows: key → digest. */
  let published = new Map<string, string>()

  const write = (entries: ReadonlyArray<MirrorEntry & { readonly key: string; readonly digest: string }>) =>
    Effect.forEach(
      entries,
      (entry) =>
        Effect.tap(store.put(entry.key, entry.object).pipe(Effect.timeout(storeTimeout)), () =>
          Effect.sync(() => {
            published.set(entry.key, entry.digest)
            mirrorObjectsWritten.updateUnsafe(1, noLabels)
          })),
      { concurrency: 8, discard: true }
    )

  return Effect.fn("MirrorPublisher.publish")(function*(work: Work) {
    if (work.full) published = new Map(yield* store.list.pipe(Effect.timeout(storeTimeout)))
    const contents = yield* objects.current(work.archived, work.incidentsChanged)
    const keyed = contents.entries.map((entry) => ({
      ...entry,
      key: store.keyOf(entry.path, entry.object.contentType),
      digest: digestOf(entry.object.body)
    }))
    const changed = keyed.filter((entry) => published.get(entry.key) !== entry.digest)
    for (const stage of stages) yield* write(changed.filter((entry) => entry.stage === stage))
    const expected = new Set(contents.paths.map(({ contentType, path }) => store.keyOf(path, contentType)))
    const gone = [...published.keys()].filter((key) => !expected.has(key))
    if (gone.length > 0) {
      yield* store.remove(gone).pipe(Effect.timeout(storeTimeout))
      for (const key of gone) published.delete(key)
      mirrorObjectsDeleted.updateUnsafe(gone.length, noLabels)
    }
    yield* Effect.annotateCurrentSpan({ written: changed.length, deleted: gone.length })
  })
})

/** Publishes while this instance holds the lock: at once in full, then as changes and the clock say. */
const lead = Effect.fnUntraced(function*(store: MirrorStore) {
  const changes = yield* StateChanges
  const lost = yield* holdAdvisoryLock(publisherLockKey)
  const notices = yield* changes.subscribe
  const publish = yield* publishing(store)
  yield* Effect.logInfo(`Publishing the public page to the mirror ${store.describe}`)

  const loop = Effect.gen(function*() {
    /** What the next publication covers; undefined: nothing is due before a change or the next tick. */
    let work: Work | undefined = everything
    let lastResync = yield* Clock.currentTimeMillis
    let lastTick = lastResync
    let failures = 0
    while (true) {
      const now = yield* Clock.currentTimeMillis
      if (now - lastResync >= resyncMillis) work = { ...everything, since: work?.since }
      if (work === undefined) {
        const taken = yield* Effect.raceFirst(
          Effect.map(PubSub.takeAll(notices), Option.some),
          Effect.as(Effect.sleep(Math.max(0, lastTick + tickMillis - now)), Option.none<ReadonlyArray<Touched>>())
        )
        const at = yield* Clock.currentTimeMillis
        if (Option.isNone(taken)) {
          lastTick = at
          work = nothing
        } else {
          // A monitor's state alone (the dashboard's) changes nothing the mirror holds: wait on.
          const seen = taken.value.filter(touchesPublic)
          if (seen.length === 0) continue
          work = nothing
          for (const touched of seen) work = merge(work, touched, at)
        }
      }
      // Changes announced meanwhile go with this publication (without waiting for any).
      const at = yield* Clock.currentTimeMillis
      for (const touched of yield* PubSub.takeUpTo(notices, Number.MAX_SAFE_INTEGER)) {
        if (touchesPublic(touched)) work = merge(work, touched, at)
      }
      const exit = yield* Effect.exit(publish(work))
      const done = yield* Clock.currentTimeMillis
      if (exit._tag === "Success") {
        if (work.since !== undefined) mirrorLag.updateUnsafe((done - work.since) / 1000, noLabels)
        if (work.full) lastResync = done
        lastTick = done
        work = undefined
        failures = 0
        continue
      }
      failures++
      mirrorFailures.updateUnsafe(1, noLabels)
      const backoff = Math.min(maxBackoffMillis, 1000 * 2 ** Math.min(failures - 1, 6))
      yield* Effect.logWarning(`Publishing to the mirror failed; trying again in ${backoff / 1000} s`, exit.cause)
      yield* Effect.sleep(backoff)
    }
  })
  return yield* Effect.raceFirst(loop, lost)
}, Effect.scoped)

const publisher = (target: MirrorTarget) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const store = target._tag === "S3" ? yield* s3MirrorStore(target) : directoryMirrorStore(target.path)
      yield* lead(store).pipe(
        Effect.catchCause((cause) =>
          Effect.logWarning("Mirror publisher stopped; standing by to take over again", cause)
        ),
        Effect.repeat(Schedule.spaced("1 second")),
        Effect.annotateLogs("fiber", "mirror-publisher"),
        Effect.forkScoped
      )
    })
  ).pipe(Layer.provide([MirrorObjects.layer, StateChanges.layer]))

/** The publisher when a mirror is configured; nothing otherwise. */
export const MirrorPublisher = Layer.unwrap(
  Effect.map(MirrorConfig, Option.match({ onNone: () => Layer.empty, onSome: publisher }))
)
