/**
 * Keeps up to `slots` items of work running at once, one worker fiber per slot, so one slow
 * item (a receiver that hangs until the time-out) holds one slot and never the others. Items
 * come from two places: handed over already claimed (the dispatcher claims the deliveries it
 * creates in the statement that creates them), in order; and claimed from the database when
 * slots are free (retries that came due, work other instances left). The claimer looks when
 * woken, when enough slots free up while the database holds more, and every `pollInterval`.
 * While handed-over items wait it claims only at that poll, as many as half the items started
 * since the last one (at least a few), and they go ahead of the handed-over ones: under a
 * steady stream of fresh events, due retries still get half the throughput.
 *
 * Workers live as long as the pump: an item costs a take from a queue, not a fiber of its own
 * (at thousands of deliveries a second, forking and tracking a fiber per item was a visible
 * share of the dispatcher's work).
 */
import { Duration, Effect, Queue } from "effect"
import type { Scope } from "effect"

export interface WorkPump<A> {
  readonly name: string
  readonly slots: number
  /** Claims at most `limit` items; the claim is what keeps other pumps off them. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<A>, unknown>
  /** Does one item; its failures are logged, never stop the pump. Its slot is free again when `work` ends. */
  readonly work: (item: A) => Effect.Effect<unknown, unknown>
  readonly pollInterval: Duration.DurationInput
}

export interface RunningWorkPump<A> {
  /** Makes the pump look for work now (something was enqueued). */
  readonly wake: Effect.Effect<void>
  /** Items the caller has claimed: they run in this order, behind those the pump claims. */
  readonly handOver: (items: ReadonlyArray<A>) => Effect.Effect<void>
  /** How many claimed items wait for a slot. */
  readonly waiting: () => number
}

/** Starts the pump; it runs until the scope closes, which interrupts the items in flight. */
export const startWorkPump = <A>(pump: WorkPump<A>): Effect.Effect<RunningWorkPump<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Claimed items waiting for a worker, in order: those claimed from the database go first.
    const fromDatabase: Array<A> = []
    const handedOver: Array<A> = []
    // One ticket per waiting item: a worker takes a ticket, then the first item in line.
    const tickets = yield* Queue.unbounded<void>()
    // A sliding queue of one: wake-ups that arrive while the claimer works collapse into one more look.
    const wakeUps = yield* Queue.sliding<void>(1)
    const wake = Queue.offer(wakeUps, undefined).pipe(Effect.asVoid)
    let busy = 0
    let waiting = 0
    // Items started, in all and as of the last poll: what a poll may claim while items wait.
    let started = 0
    let startedAtPoll = 0
    // Set when the database may hold more: the last claim took all it asked for, or a look was put off.
    let claimBacklog = false
    // Set by the poll: the claimer looks even while handed-over items wait.
    let pollDue = false
    // With a backlog in the database, a claim waits for this many free slots rather than claiming one at a time.
    const claimBatch = Math.max(1, Math.floor(pump.slots / 8))
    const free = () => pump.slots - busy - waiting

    const enqueue = (line: Array<A>, items: ReadonlyArray<A>) =>
      Effect.suspend(() => {
        line.push(...items)
        waiting += items.length
        return Queue.offerAll(tickets, items.map(() => undefined))
      })

    const itemDone = Effect.suspend(() => {
      busy -= 1
      return waiting === 0 && claimBacklog && free() >= claimBatch ? wake : Effect.void
    })

    const worker = Queue.take(tickets).pipe(
      Effect.flatMap(() => {
        const item = fromDatabase.length > 0 ? fromDatabase.shift()! : handedOver.shift()!
        waiting -= 1
        busy += 1
        started += 1
        return pump.work(item).pipe(
          Effect.catchAllCause((cause) => Effect.logError(`${pump.name}: an item failed`, cause)),
          Effect.zipRight(itemDone)
        )
      }),
      Effect.forever
    )

    // A claim asks for the slots nothing waits for; while items wait, a share at the poll.
    const claimIfFree = Effect.suspend(() => {
      const polled = pollDue
      pollDue = false
      const startedSincePoll = started - startedAtPoll
      if (polled) startedAtPoll = started
      // Asked to look while claimed items wait: look again once they are under way.
      if (waiting > 0 && !polled) return Effect.sync(() => (claimBacklog = true))
      const limit = waiting > 0 ? Math.max(claimBatch, Math.floor(startedSincePoll / 2)) : free()
      if (limit === 0) return Effect.void
      return pump.claim(limit).pipe(
        // A claim is one short statement: let it finish rather than cut a query short.
        Effect.uninterruptible,
        Effect.catchAllCause((cause) => Effect.logWarning(`${pump.name}: claiming work failed`, cause).pipe(Effect.as([]))),
        Effect.flatMap((items) => {
          claimBacklog = items.length === limit
          return enqueue(fromDatabase, items)
        })
      )
    })

    yield* Effect.forkScoped(Effect.replicateEffect(worker, pump.slots, { concurrency: "unbounded", discard: true }))
    const poll = Effect.zipRight(Effect.sync(() => (pollDue = true)), wake)
    yield* poll.pipe(Effect.delay(pump.pollInterval), Effect.forever, Effect.forkScoped)
    yield* claimIfFree.pipe(
      Effect.zipRight(Queue.take(wakeUps)),
      Effect.forever,
      Effect.withLogSpan(pump.name),
      Effect.forkScoped
    )
    return {
      wake,
      handOver: (items) => (items.length === 0 ? Effect.void : enqueue(handedOver, items)),
      waiting: () => waiting
    }
  })
