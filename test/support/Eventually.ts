import { Clock, Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

/** Real-time pause (works under TestClock, which only moves Effect's own clock). */
export const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/** A TestClock that also tells the wake-up times of the sleeps pending on it. */
interface RecordingTestClock extends TestClock.TestClock {
  readonly pendingSleeps: () => ReadonlyArray<number>
}

const isTestClock = (clock: Clock.Clock): clock is TestClock.TestClock =>
  "adjust" in clock && "setTime" in clock && "withLive" in clock

const isRecording = (clock: Clock.Clock): clock is RecordingTestClock => "pendingSleeps" in clock

const recording = (inner: TestClock.TestClock): RecordingTestClock => {
  const pending: Array<number> = []
  return {
    currentTimeMillisUnsafe: () => inner.currentTimeMillisUnsafe(),
    currentTimeMillis: inner.currentTimeMillis,
    currentTimeNanosUnsafe: () => inner.currentTimeNanosUnsafe(),
    currentTimeNanos: inner.currentTimeNanos,
    monotonicTimeNanosUnsafe: () => inner.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: inner.monotonicTimeNanos,
    sleep: (duration) =>
      Effect.suspend(() => {
        const now = inner.currentTimeMillisUnsafe()
        const wakeUp = now + Duration.toMillis(duration)
        // As the TestClock: a sleep that ends now or earlier is no pending sleep.
        if (wakeUp <= now) return inner.sleep(duration)
        pending.push(wakeUp)
        return Effect.ensuring(
          inner.sleep(duration),
          Effect.sync(() => {
            pending.splice(pending.indexOf(wakeUp), 1)
          })
        )
      }),
    adjust: (duration) => inner.adjust(duration),
    setTime: (timestamp) => inner.setTime(timestamp),
    withLive: (effect) => inner.withLive(effect),
    pendingSleeps: () => pending.slice()
  }
}

/**
 * The TestClock in place, wrapped to keep the wake-up time of every sleep pending on it: v4's
 * TestClock keeps its sleeps private (v3 had `TestClock.sleeps()`). `TestServer` installs it, so
 * the stack's fibers and the suite's tests sleep on it and `asleepUntil` can see them; over a live
 * Clock it changes nothing.
 */
export const RecordingTestClock: Layer.Layer<never> = Layer.effect(
  Clock.Clock,
  Clock.clockWith((clock) => Effect.sync(() => isTestClock(clock) && !isRecording(clock) ? recording(clock) : clock))
)

/**
 * The wake-up times of the sleeps pending on the TestClock, as v3's `TestClock.sleeps()` (an
 * array here, in no particular order). Needs the clock `TestServer` installs (`RecordingTestClock`).
 */
export const testClockSleeps: Effect.Effect<ReadonlyArray<number>> = Clock.clockWith((clock) =>
  isRecording(clock)
    ? Effect.sync(clock.pendingSleeps)
    : Effect.die(new Error("testClockSleeps needs the RecordingTestClock that TestServer installs"))
)

/**
 * Runs `effect` until `done` holds for its result, pausing in real time between tries: for
 * background fibers whose I/O finishes after TestClock.adjust has returned.
 */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean, timeoutMillis = 5_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    let result = yield* effect
    while (!done(result) && Date.now() < deadline) {
      yield* realPause(25)
      result = yield* effect
    }
    return result
  })

/**
 * Waits in real time (10 s at most) until a fiber sleeps until `at` on the TestClock: a
 * background fiber's pass is over and its next one is due then. Moving the clock before the
 * fiber sleeps would leave it sleeping from the moved time, past what the test waits for.
 */
export const asleepUntil = (at: number) =>
  eventually(testClockSleeps, (sleeps) => sleeps.some((wakeUp) => wakeUp === at), 10_000)

/**
 * Moves the TestClock a second at a time, with real time in between for the scheduler's reload
 * (a query) to land, until `done` holds; at most `rounds` seconds. Returns whether it held.
 */
export const stepUntil = (done: () => boolean, rounds = 25) =>
  Effect.gen(function*() {
    for (let round = 0; round < rounds && !done(); round++) {
      yield* TestClock.adjust("1 second")
      yield* realPause(50)
    }
    return done()
  })

/**
 * Moves the TestClock a second at a time, with real time in between for the queries of the
 * fibers it wakes (the maintenance clock), until `check` yields a value; at most a minute.
 */
export const eventuallyOnTestClock = <A, E, R>(check: Effect.Effect<A | undefined, E, R>) =>
  Effect.gen(function*() {
    for (let round = 0; round < 60; round++) {
      const result = yield* check
      if (result !== undefined) return result
      yield* TestClock.adjust("1 second")
      yield* TestClock.withLive(Effect.sleep("50 millis"))
    }
    return yield* Effect.die(new Error("condition not reached"))
  })
