import { Chunk, Effect, TestClock, TestServices } from "effect"

/** Real-time pause (works under TestClock, which only moves Effect's own clock). */
export const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

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
  eventually(TestClock.sleeps(), (sleeps) => Chunk.some(sleeps, (wakeUp) => wakeUp === at), 10_000)

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
      yield* TestServices.provideLive(Effect.sleep("50 millis"))
    }
    return yield* Effect.dieMessage("condition not reached")
  })
