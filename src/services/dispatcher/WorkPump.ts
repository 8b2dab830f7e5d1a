/**
 * Keeps up to `slots` items of work running, each in its own fiber, so one slow item (a
 * receiver that hangs until the time-out) holds one slot and never the others. Items come
 * from two places: handed over already claimed (the dispatcher claims the deliveries it
 * creates in the statement that creates them), which go first, in order; and claimed from the
 * database when slots are free and nothing handed over waits (retries that came due, work
 * other instances left). It looks again when woken, when a slot frees up while work waits,
 * and every `pollInterval`.
 */
import { Duration, Effect, FiberSet, Queue } from "effect"
import type { Scope } from "effect"

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
  readonly pollInterval: Duration.DurationInput
}

export interface RunningWorkPump<A> {
  /** Makes the pump look for work now (something was enqueued). */
  readonly wake: Effect.Effect<void>
  /** Items the caller has claimed: they run before any new claim, in this order. */
  readonly handOver: (items: ReadonlyArray<A>) => Effect.Effect<void>
  /** How many handed-over items wait for a slot. */
  readonly waiting: () => number
}

/** Starts the pump; it runs until the scope closes, which interrupts the items in flight. */
export const startWorkPump = <A>(pump: WorkPump<A>): Effect.Effect<RunningWorkPump<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const running = yield* FiberSet.make()
    // A sliding queue of one: wake-ups that arrive while the pump works collapse into one more look.
    const wakeUps = yield* Queue.sliding<void>(1)
    const wake = Queue.offer(wakeUps, undefined).pipe(Effect.asVoid)
    const ready: Array<A> = []
    let free = pump.slots
    // Set when the last claim filled every free slot: the database may hold more.
    let claimBacklog = false
    // With a backlog in the database, a claim waits for this many free slots rather than claiming one at a time.
    const claimBatch = Math.max(1, Math.floor(pump.slots / 8))

    const freeSlot = Effect.suspend(() => {
      free += 1
      return ready.length > 0 || (claimBacklog && free >= claimBatch) ? wake : Effect.void
    })

    const runOne = (item: A) =>
      Effect.suspend(() => {
        let released = false
        const release = Effect.suspend(() => released ? Effect.void : (released = true, freeSlot))
        return pump.work(item, release).pipe(
          Effect.catchAllCause((cause) => Effect.logError(`${pump.name}: an item failed`, cause)),
          Effect.ensuring(release)
        )
      })

    const start = (items: ReadonlyArray<A>) =>
      Effect.forEach(items, (item) => FiberSet.run(running, runOne(item)), { discard: true })

    const fillSlots = Effect.gen(function*() {
      const handedOver = ready.splice(0, free)
      free -= handedOver.length
      yield* start(handedOver)
      if (free === 0 || ready.length > 0) return
      const limit = free
      const claimed = yield* pump.claim(limit).pipe(
        // A claim is one short statement: let it finish rather than cut a query short.
        Effect.uninterruptible,
        Effect.catchAllCause((cause) => Effect.logWarning(`${pump.name}: claiming work failed`, cause).pipe(Effect.as([])))
      )
      claimBacklog = claimed.length === limit
      // Slots only free up during the claim, so these are free still.
      free -= claimed.length
      yield* start(claimed)
    })

    yield* wake.pipe(Effect.delay(pump.pollInterval), Effect.forever, Effect.forkScoped)
    yield* fillSlots.pipe(
      Effect.zipRight(Queue.take(wakeUps)),
      Effect.forever,
      Effect.withLogSpan(pump.name),
      Effect.forkScoped
    )
    return {
      wake,
      handOver: (items) =>
        items.length === 0 ? Effect.void : Effect.zipRight(Effect.sync(() => items.forEach((item) => ready.push(item))), wake),
      waiting: () => ready.length
    }
  })
