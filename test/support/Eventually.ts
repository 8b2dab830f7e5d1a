import { Effect } from "effect"

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
