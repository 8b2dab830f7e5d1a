/**
 * The push monitors by token hash, in memory, so that a push to an unknown token is answered
 * 404 without a database query (docs/monitor-fleet.md, "Push monitors"). It is read whole (one
 * statement) at start (again every few seconds until that succeeds), after each change of a
 * monitor on this instance (awaited by the change, so a monitor just created takes pushes at
 * once), and when another instance announces a change of monitors, or listening for those
 * announcements starts again after a lost connection (StateChanges then says "everything").
 * No timer reads it meanwhile: a background clock would cost every test's long TestClock moves.
 */
import { Context, Effect, Layer, PubSub, Schedule } from "effect"

import { type PushMonitorRow, PushMonitorsRepo } from "../../persistence/PushMonitorsRepo.js"
import { StateChanges } from "../StateChanges.js"

export class PushIndex extends Context.Service<PushIndex>()("PushIndex", {
  make: Effect.gen(function*() {
    const repo = yield* PushMonitorsRepo
    const changes = yield* StateChanges
    let byHash = new Map<string, PushMonitorRow>()

    const reload = Effect.gen(function*() {
      const rows = yield* repo.tokens()
      byHash = new Map(rows.map((row) => [row.pushTokenHash, row]))
    }).pipe(Effect.withSpan("PushIndex.reload"))
    const reloadOrWarn = reload.pipe(
      Effect.catchCause((cause) => Effect.logWarning("Reading the push monitors failed; keeping the last read", cause))
    )

    // A database away at start leaves the index empty until a read succeeds: pushes are 404 meanwhile.
    const retried = reload.pipe(
      Effect.tapCause((cause) => Effect.logWarning("Reading the push monitors failed; retrying", cause)),
      Effect.retry(Schedule.min([Schedule.exponential("1 second"), Schedule.spaced("30 seconds")]))
    )
    yield* reload.pipe(Effect.catchCause(() => Effect.asVoid(Effect.forkScoped(retried))))
    const subscription = yield* changes.subscribe
    yield* PubSub.take(subscription).pipe(
      Effect.flatMap((touched) => touched.monitors === true ? reloadOrWarn : Effect.void),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      /** The push monitor of a token's hash, as last read. */
      find: (hash: string): PushMonitorRow | undefined => byHash.get(hash),
      /** Reads the index again; a change of monitors on this instance waits for it. */
      reload: reloadOrWarn
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([PushMonitorsRepo.layer, StateChanges.layer])
  )
}
