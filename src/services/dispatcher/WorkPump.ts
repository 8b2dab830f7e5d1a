/**
 * Keeps up to `slots` items of work running: it claims as many due items as there are free
 * slots and runs each in its own fiber, so one slow item (a receiver that hangs until the
 * time-out) holds one slot and never the others. It looks for work when woken, when a slot
 * frees up after a full claim (more may be waiting), and every `pollInterval` (retries that
 * came due, work enqueued by other instances).
 */
import { Duration, Effect, FiberSet, Queue, Ref } from "effect"

export interface WorkPump<A> {
  readonly name: string
  readonly slots: number
  /** Claims at most `limit` items; the claim is what keeps other pumps off them. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<A>, unknown>
  /**
   * Does one item; its failures are logged, never stop the pump. The item's slot is free again
   * when `work` ends, or earlier once it runs `release` (what the bound is about is over, such
   * as a request in flight, and only bookkeeping is left).
   */
  readonly work: (item: A, release: Effect.Effect<void>) => Effect.Effect<unknown, unknown>
  /** Takes one wake-up. */
  readonly woken: Effect.Effect<unknown>
  readonly pollInterval: Duration.DurationInput
}

/** Runs the pump until interrupted; the items in flight are interrupted with it (scoped). */
export const runWorkPump = <A>(pump: WorkPump<A>) =>
  Effect.gen(function*() {
    const running = yield* FiberSet.make()
    const free = yield* Ref.make(pump.slots)
    const slotFreed = yield* Queue.sliding<void>(1)
    // Set when the last claim filled every free slot: then a freed slot is worth a new claim.
    let backlog = false

    const freeSlot = Effect.zipRight(Ref.update(free, (n) => n + 1), Effect.suspend(() => backlog ? Queue.offer(slotFreed, undefined) : Effect.void))

    const runOne = (item: A) =>
      Effect.suspend(() => {
        let released = false
        const release = Effect.suspend(() => released ? Effect.void : (released = true, freeSlot))
        return pump.work(item, release).pipe(
          Effect.catchAllCause((cause) => Effect.logError(`${pump.name}: an item failed`, cause)),
          Effect.ensuring(release)
        )
      })

    const claimFree = Effect.gen(function*() {
      const limit = yield* Ref.get(free)
      if (limit === 0) return
      const items = yield* pump.claim(limit).pipe(
        // A claim is one short statement: let it finish rather than cut a query short.
        Effect.uninterruptible,
        Effect.catchAllCause((cause) => Effect.logWarning(`${pump.name}: claiming work failed`, cause).pipe(Effect.as([])))
      )
      backlog = items.length === limit
      yield* Ref.update(free, (n) => n - items.length)
      for (const item of items) yield* FiberSet.run(running, runOne(item))
    })

    const nextWakeUp = Effect.raceFirst(
      Effect.raceFirst(pump.woken, Queue.take(slotFreed)),
      Effect.sleep(pump.pollInterval)
    )

    // A full claim leaves no free slot, so the pump always waits: for a wake-up, a freed slot or the poll.
    return yield* claimFree.pipe(
      Effect.zipRight(nextWakeUp),
      Effect.forever,
      Effect.withLogSpan(pump.name)
    )
  }).pipe(Effect.scoped)
