/**
 * The work pump on its own, in test time: handed-over items run in order on a fixed number of
 * slots, work that comes due in the database is not kept waiting behind a steady stream of
 * handed-over items, and an idle pump looks when something it was told of comes due, else
 * every `idlePoll`, not every second.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"

import { effectWork, startWorkPump } from "../../../src/services/notifications/dispatcher/WorkPump.js"
import { removeDefaultLogger } from "../../support/Logs.js"

const pumpOver = (database: Array<string>, started: Array<string>) =>
  Effect.gen(function*() {
    // Each item takes 100 ms of test time: two slots get through 20 a second.
    const start = yield* effectWork("test", (item: string) =>
      Effect.andThen(Effect.sync(() => started.push(item)), Effect.sleep("100 millis")))
    return yield* startWorkPump({
      name: "test",
      slots: 2,
      claim: (limit) =>
        Effect.sync(() => database.splice(0, limit)),
      start,
      pollInterval: "1 second",
      idlePoll: "10 seconds"
    })
  })

const items = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

it.effect("handed-over items run in order, two at a time", () =>
  Effect.gen(function*() {
    const started: Array<string> = []
    const pump = yield* pumpOver([], started)
    yield* pump.handOver(items("h", 6))
    yield* TestClock.adjust("50 millis")
    expect(started).toEqual(["h0", "h1"])
    expect(pump.waiting()).toBe(4)
    yield* TestClock.adjust("200 millis")
    expect(started).toEqual(items("h", 6))
    expect(pump.waiting()).toBe(0)
  }))

it.effect("a retry that comes due while handed-over items wait runs at the next poll, ahead of them", () =>
  Effect.gen(function*() {
    const database: Array<string> = []
    const started: Array<string> = []
    const pump = yield* pumpOver(database, started)
    yield* pump.handOver(items("h", 100))
    // Due in the database now; the wake-up finds handed-over items waiting and puts the claim off.
    database.push("retry")
    yield* pump.wake
    yield* TestClock.adjust("950 millis")
    expect(started).not.toContain("retry")
    // The poll claims it anyway, and it goes ahead of the 80 items still waiting.
    yield* TestClock.adjust("200 millis")
    expect(started).toContain("retry")
    expect(started.indexOf("retry")).toBeLessThan(25)
    expect(database).toEqual([])
    // Nothing handed over is lost or run twice.
    yield* TestClock.adjust("5 seconds")
    expect(started.filter((item) => item !== "retry")).toEqual(items("h", 100))
  }))

it.effect("under a steady stream of handed-over items, retries due in the database get half the throughput", () =>
  Effect.gen(function*() {
    const database: Array<string> = []
    const started: Array<string> = []
    const pump = yield* pumpOver(database, started)
    yield* pump.handOver(items("h", 200))
    // Due after the pump's first look.
    database.push(...items("r", 30))
    const retriesStarted = () => started.filter((item) => item.startsWith("r")).length
    yield* TestClock.adjust("950 millis")
    expect(retriesStarted()).toBe(0)
    // The poll at 1 s claims half of the 20 items started in the second before; they run next.
    yield* TestClock.adjust("600 millis")
    expect(retriesStarted()).toBe(10)
    // And about as many at the next poll, while the handed-over items go on in between.
    yield* TestClock.adjust("1 second")
    expect(retriesStarted()).toBeGreaterThanOrEqual(20)
    expect(started.length - retriesStarted()).toBeGreaterThan(20)
  }))

it.effect("with nothing handed over, the pump claims as many items as it has free workers", () =>
  Effect.gen(function*() {
    const database = items("d", 5)
    const started: Array<string> = []
    yield* pumpOver(database, started)
    yield* TestClock.adjust("50 millis")
    expect(started).toEqual(["d0", "d1"])
    // A full claim means the database may hold more: a freed worker looks again at once.
    yield* TestClock.adjust("300 millis")
    expect(started).toEqual(items("d", 5))
  }))

it.effect("items started by plain callbacks: one done at once, one that throws, and those under way abandoned when the pump stops", () =>
  Effect.gen(function*() {
    const started: Array<string> = []
    const abandoned: Array<string> = []
    yield* Effect.gen(function*() {
      const pump = yield* startWorkPump<string>({
        name: "callbacks",
        slots: 2,
        claim: () => Effect.succeed([]),
        start: (item, done) => {
          started.push(item)
          if (item.startsWith("instant")) done()
          if (item.startsWith("broken")) throw new Error("cannot start")
          return () => abandoned.push(item)
        },
        pollInterval: "1 second",
        idlePoll: "10 seconds"
      })
      // Done before `start` returns, or failed to start: neither holds a slot.
      yield* pump.handOver(["instant0", "broken0", "instant1", "slow0", "broken1", "slow1", "slow2"])
      expect(started).toEqual(["instant0", "broken0", "instant1", "slow0", "broken1", "slow1"])
      expect(pump.waiting()).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(removeDefaultLogger))
    expect(abandoned.sort()).toEqual(["slow0", "slow1"])
  }))

/** A database of items each due at a time (TestClock millis); the claim takes the due ones and counts its statements. */
const timedDatabase = () => {
  const rows: Array<{ item: string; dueAt: number }> = []
  let claims = 0
  return {
    rows,
    claims: () => claims,
    claim: (limit: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        claims += 1
        const due = rows.filter((row) => row.dueAt <= now).slice(0, limit)
        for (const row of due) rows.splice(rows.indexOf(row), 1)
        return due.map((row) => row.item)
      })
  }
}

const idlePump = (database: ReturnType<typeof timedDatabase>, started: Array<string>) =>
  Effect.gen(function*() {
    const start = yield* effectWork("test", (item: string) => Effect.sync(() => started.push(item)))
    return yield* startWorkPump({
      name: "idle",
      slots: 4,
      claim: database.claim,
      start,
      pollInterval: "1 second",
      idlePoll: "10 seconds"
    })
  })

it.effect("an idle pump looks every 10 s, not every second, and finds work nobody told it of", () =>
  Effect.gen(function*() {
    const database = timedDatabase()
    const started: Array<string> = []
    yield* idlePump(database, started)
    yield* TestClock.adjust("50 millis")
    expect(database.claims()).toBe(1)
    // Another instance's work, due now: found at the next idle poll, 10 s after the first look.
    database.rows.push({ item: "elsewhere", dueAt: 0 })
    yield* TestClock.adjust("9900 millis")
    expect(started).toEqual([])
    yield* TestClock.adjust("100 millis")
    expect(started).toEqual(["elsewhere"])
    // A minute of nothing: six looks, not sixty.
    const before = database.claims()
    yield* TestClock.adjust("60 seconds")
    expect(database.claims() - before).toBe(6)
  }))

it.effect("a retry the pump was told of is claimed when it comes due, between idle polls", () =>
  Effect.gen(function*() {
    const database = timedDatabase()
    const started: Array<string> = []
    const pump = yield* idlePump(database, started)
    yield* TestClock.adjust("100 millis")
    const now = yield* Clock.currentTimeMillis
    // Two retries, due 5 s and 7.25 s from now; the idle poll would come at 10 s.
    database.rows.push({ item: "retry-5s", dueAt: now + 5_000 }, { item: "retry-7s", dueAt: now + 7_250 })
    pump.dueAt(now + 7_250)
    pump.dueAt(now + 5_000)
    yield* TestClock.adjust("4999 millis")
    expect(started).toEqual([])
    yield* TestClock.adjust("1 millis")
    expect(started).toEqual(["retry-5s"])
    // The later one is not forgotten once the earlier has come due; due times are kept to 100 ms.
    yield* TestClock.adjust("2249 millis")
    expect(started).toEqual(["retry-5s"])
    yield* TestClock.adjust("101 millis")
    expect(started).toEqual(["retry-5s", "retry-7s"])
    expect(database.claims()).toBe(3)
  }))

it.effect("a retry that comes due while every slot is busy is claimed once a slot frees, not at the next idle poll", () =>
  Effect.gen(function*() {
    const database = timedDatabase()
    const started: Array<string> = []
    // Each item takes 2 s: one slot, busy from the start.
    const start = yield* effectWork(
      "test",
      (item: string) => Effect.andThen(Effect.sync(() => started.push(item)), Effect.sleep("2 seconds"))
    )
    const pump = yield* startWorkPump({
      name: "busy",
      slots: 1,
      claim: database.claim,
      start,
      pollInterval: "1 second",
      idlePoll: "10 seconds"
    })
    yield* pump.handOver(["long"])
    const now = yield* Clock.currentTimeMillis
    database.rows.push({ item: "retry", dueAt: now + 1_000 })
    pump.dueAt(now + 1_000)
    yield* TestClock.adjust("1500 millis")
    expect(started).toEqual(["long"])
    yield* TestClock.adjust("600 millis")
    expect(started).toEqual(["long", "retry"])
  }))
