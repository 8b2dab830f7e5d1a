/**
 * Keeps up to `slots` items of work running at once, so one slow item (a receiver that hangs
 * until the time-out) holds one slot and never the others. Items come from two places: handed
 * over already claimed (the dispatcher claims the deliveries it creates in the statement that
 * creates them), in order; and claimed from the database when slots are free (retries that came
 * due, work other instances left). The claimer looks when woken (work was enqueued), when
 * enough slots free up while the database holds more, when something it was told of comes due
 * (`dueAt`: a retry this process scheduled), and otherwise after `idlePoll` without a look (work
 * it was not told of: another instance's). An idle pump thus costs a statement per `idlePoll`,
 * not one a second. While handed-over items wait it claims only at a poll, every
 * `pollInterval`, as many as half the items started since the last one (at least a few), and
 * they go ahead of the handed-over ones: under a steady stream of fresh events, due retries
 * still get half the throughput.
 *
 * An item is started by a plain callback and reports its slot free by another: at thousands of
 * webhook deliveries a second, running each through fibers and queues was the largest share of
 * the dispatcher's work beyond the requests themselves. Work that is an Effect (mail) runs as a
 * fiber per item through `effectWork`. Claims stay Effects: one statement per batch.
 */
import type { Scope } from "effect"
import { Cause, Clock, Duration, Effect, FiberSet, Queue } from "effect"

/** Abandons an item under way when the pump stops: its `done` need not be called. */
export type Abandon = () => void

export interface WorkPump<A> {
  readonly name: string
  readonly slots: number
  /** Claims at most `limit` items; the claim is what keeps other pumps off them. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<A>, unknown>
  /**
   * Starts one item and calls `done` once its slot is free again (possibly before it returns).
   * It handles its own failures: it must not throw.
   */
  readonly start: (item: A, done: () => void) => Abandon
  /** While claimed items wait for a slot: how often the claimer claims a share all the same. */
  readonly pollInterval: Duration.Input
  /** Otherwise: the longest the claimer goes without looking. */
  readonly idlePoll: Duration.Input
}

export interface RunningWorkPump<A> {
  /** Makes the pump look for work now (something was enqueued). */
  readonly wake: Effect.Effect<void>
  /** Makes the pump look for work at `millis` (by the service's clock): something comes due then. */
  readonly dueAt: (millis: number) => void
  /** Items the caller has claimed: they run in this order, behind those the pump claims. */
  readonly handOver: (items: ReadonlyArray<A>) => Effect.Effect<void>
  /** How many claimed items wait for a slot. */
  readonly waiting: () => number
}

/** Due times are kept to this many milliseconds (rounded up): a look comes at most this late. */
const dueResolution = 100

/**
 * `start` for work that is an Effect: each item runs as a fiber of its own (interrupted when the
 * scope closes, which waits for it), its failures logged.
 */
export const effectWork = <A, R>(name: string, work: (item: A) => Effect.Effect<unknown, unknown, R>) =>
  Effect.map(FiberSet.makeRuntime<R>(), (run) => (item: A, done: () => void): Abandon => {
    const fiber = run(
      work(item).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(`${name}: an item failed`, cause)
        ),
        Effect.ensuring(Effect.sync(done))
      )
    )
    return () => fiber.interruptUnsafe(fiber.id)
  })

/** Starts the pump; it runs until the scope closes, which abandons the items under way. */
export const startWorkPump = <A>(pump: WorkPump<A>): Effect.Effect<RunningWorkPump<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    // Claimed items waiting for a slot, in order: those claimed from the database go first.
    const fromDatabase: Array<A> = []
    const handedOver: Array<A> = []
    const underWay = new Set<{ abandon: Abandon }>()
    // A sliding queue of one: wake-ups that arrive while the claimer works collapse into one more look.
    const wakeUps = yield* Queue.sliding<void>(1)
    const wakeClaimer = () => void Queue.offerUnsafe(wakeUps, undefined)
    let busy = 0
    let stopped = false
    let starting = false
    // Items started, in all and as of the last poll: what a poll may claim while items wait.
    let started = 0
    let startedAtPoll = 0
    // Set when the database may hold more: the last claim took all it asked for, or a look was put off.
    let claimBacklog = false
    // Set by the poll: the claimer looks even while handed-over items wait.
    let pollDue = false
    const clock = yield* Clock.Clock
    const pollMillis = Duration.toMillis(pump.pollInterval)
    const idleMillis = Duration.toMillis(pump.idlePoll)
    // When the claimer last claimed (or was told to poll): the polls count from there.
    let lastLook = clock.currentTimeMillisUnsafe()
    // Times something comes due (`dueAt`), rounded up to `dueResolution`, so a burst of retries
    // is a few entries; and the earliest of them.
    const dueTimes = new Set<number>()
    let earliestDue = Infinity
    // Wakes the poll timer to reckon again: an earlier due time, or items waiting now.
    const timerChanged = yield* Queue.sliding<void>(1)
    // With a backlog in the database, a claim waits for this many free slots rather than claiming one at a time.
    const claimBatch = Math.max(1, Math.floor(pump.slots / 8))
    const waiting = () => fromDatabase.length + handedOver.length
    const free = () => pump.slots - busy - waiting()

    const startOne = (item: A) => {
      let finished = false
      let entry: { abandon: Abandon } | undefined
      const done = () => {
        if (finished) return
        finished = true
        busy -= 1
        if (entry !== undefined) underWay.delete(entry)
        if (waiting() === 0 && claimBacklog && free() >= claimBatch) wakeClaimer()
        startWaiting()
      }
      busy += 1
      started += 1
      try {
        entry = { abandon: pump.start(item, done) }
      } catch (error) {
        runFork(Effect.logError(`${pump.name}: an item failed to start`, error))
        return done()
      }
      if (!finished) underWay.add(entry)
    }

    /** Fills the free slots from the line. Re-entered by a `done` called inside `start`: the outer loop carries on. */
    const startWaiting = () => {
      if (starting || stopped) return
      starting = true
      try {
        while (busy < pump.slots && waiting() > 0) {
          startOne(fromDatabase.length > 0 ? fromDatabase.shift()! : handedOver.shift()!)
        }
      } finally {
        starting = false
      }
    }

    const enqueue = (line: Array<A>, items: ReadonlyArray<A>) =>
      Effect.sync(() => {
        for (const item of items) line.push(item)
        startWaiting()
        // Items left waiting: the timer polls every `pollInterval` from now on.
        if (waiting() > 0) Queue.offerUnsafe(timerChanged, undefined)
      })

    /** Forgets the due times a look at `now` covers. */
    const forgetDueUpTo = (now: number) => {
      if (earliestDue > now) return
      earliestDue = Infinity
      for (const at of dueTimes) {
        if (at <= now) dueTimes.delete(at)
        else if (at < earliestDue) earliestDue = at
      }
    }

    // A claim asks for the slots nothing waits for; while items wait, a share at the poll.
    const claimIfFree = Effect.suspend(() => {
      const polled = pollDue
      pollDue = false
      const startedSincePoll = started - startedAtPoll
      if (polled) startedAtPoll = started
      // Asked to look while claimed items wait: look again once they are under way.
      if (waiting() > 0 && !polled) return Effect.sync(() => (claimBacklog = true))
      const limit = waiting() > 0 ? Math.max(claimBatch, Math.floor(startedSincePoll / 2)) : free()
      // No slot free: look again once enough are.
      if (limit <= 0) return Effect.sync(() => (claimBacklog = true))
      lastLook = clock.currentTimeMillisUnsafe()
      forgetDueUpTo(lastLook)
      return pump.claim(limit).pipe(
        // A claim is one short statement: let it finish rather than cut a query short.
        Effect.uninterruptible,
        Effect.catchCause((cause) =>
          Effect.logWarning(`${pump.name}: claiming work failed`, cause).pipe(Effect.as([]))
        ),
        Effect.flatMap((items) => {
          claimBacklog = items.length === limit
          return enqueue(fromDatabase, items)
        })
      )
    })

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        stopped = true
        for (const { abandon } of [...underWay]) abandon()
        underWay.clear()
      })
    )
    /**
     * The poll timer: sleeps until the next look is due (the earliest due time, else a poll
     * interval after the last look: `pollInterval` while items wait, `idlePoll` otherwise), then
     * has the claimer poll. Woken early to reckon again when an earlier time or waiting items
     * come in.
     */
    const pollTimer = Effect.gen(function*() {
      const now = clock.currentTimeMillisUnsafe()
      const next = Math.min(earliestDue, lastLook + (waiting() > 0 ? pollMillis : idleMillis))
      if (next > now) {
        yield* Effect.raceFirst(Queue.take(timerChanged), Effect.sleep(Duration.millis(next - now)))
        return
      }
      lastLook = now
      forgetDueUpTo(now)
      pollDue = true
      wakeClaimer()
    })
    yield* pollTimer.pipe(Effect.forever, Effect.forkScoped)
    yield* claimIfFree.pipe(
      Effect.andThen(Queue.take(wakeUps)),
      Effect.forever,
      Effect.withLogSpan(pump.name),
      Effect.forkScoped
    )
    return {
      wake: Effect.sync(wakeClaimer),
      dueAt: (millis) => {
        const at = Math.ceil(millis / dueResolution) * dueResolution
        dueTimes.add(at)
        if (at < earliestDue) {
          earliestDue = at
          Queue.offerUnsafe(timerChanged, undefined)
        }
      },
      handOver: (items) => (items.length === 0 ? Effect.void : enqueue(handedOver, items)),
      waiting
    }
  })
