/**
 * Gauges read at scrape time: scrapes arriving while a refresh runs wait for that one instead
 * of starting their own, so a flood of scrapes cannot pile up database queries.
 */
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"

import { refreshScrapeGauges, scrapeGauge } from "../../src/runtime/ScrapeGauges.js"

it.live("concurrent scrapes share one refresh; the next scrape refreshes again", () =>
  Effect.gen(function*() {
    let runs = 0
    const release = yield* Deferred.make<void>()
    yield* scrapeGauge(Effect.andThen(Effect.sync(() => runs++), Deferred.await(release)))
    const scrapes = yield* Effect.forEach(
      Array.from({ length: 20 }),
      () => Effect.forkChild(refreshScrapeGauges)
    )
    yield* Effect.sleep("50 millis")
    expect(runs).toBe(1)
    yield* Deferred.succeed(release, undefined)
    yield* Fiber.joinAll(scrapes)
    yield* refreshScrapeGauges
    expect(runs).toBe(2)
  }).pipe(Effect.scoped))
