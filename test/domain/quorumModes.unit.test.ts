import { describe, expect, it } from "vitest"

import type { QuorumMonitor, QuorumRule } from "../../src/domain/Quorum.js"
import { decide, isDegraded, quorumCounts, reportingRegions, statusFromMonitors } from "../../src/domain/Quorum.js"
import { checkInterval as interval, regionStatus as region } from "../support/RegionStatuses.js"

const now = 5 * interval + 10

const monitor = (
  state: QuorumMonitor["state"],
  quorum: QuorumRule,
  options: { regions?: ReadonlyArray<string> | null; degradedAboveMs?: number | null } = {}
): QuorumMonitor => ({
  state,
  intervalSeconds: 60,
  failureThreshold: 3,
  regions: options.regions ?? null,
  quorum,
  degradedAboveMs: options.degradedAboveMs ?? null
})

const up = [true, true, true, true, true]
const failing = [true, true, false, false, false] // three failures from t = 3
const failingLonger = [false, false, false, false, false] // five failures from t = 1
const recovered = [false, false, false, false, true] // failed, then last succeeded at t = 5
const once = [true, true, true, true, false] // one failure: below the threshold
const slow = [true, true, true, true, 900] // last success took 900 ms
const slowFrom4 = [true, true, true, 900, 900]

describe("quorum counts", () => {
  it("are a majority each way for majority, and n - k + 1 successes (at least one) otherwise", () => {
    expect(quorumCounts("majority", 3)).toEqual({ down: 2, up: 2 })
    expect(quorumCounts("majority", 4)).toEqual({ down: 3, up: 3 })
    expect(quorumCounts("any", 3)).toEqual({ down: 1, up: 3 })
    expect(quorumCounts("all", 3)).toEqual({ down: 3, up: 1 })
    expect(quorumCounts(2, 3)).toEqual({ down: 2, up: 2 })
    expect(quorumCounts(5, 3)).toEqual({ down: 5, up: 1 })
  })
})

describe("quorum any", () => {
  it("goes down when one region fails by the threshold", () => {
    expect(decide(monitor("up", "any"), [region("a", failing), region("b", up), region("c", up)], now))
      .toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("needs the threshold: one failure in one region changes nothing", () => {
    expect(decide(monitor("up", "any"), [region("a", once), region("b", up)], now)).toEqual({ _tag: "Unchanged" })
  })

  it("is up again only when every reporting region last succeeded", () => {
    expect(decide(monitor("down", "any"), [region("a", recovered), region("b", once), region("c", up)], now))
      .toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("down", "any"), [region("a", recovered), region("b", up), region("c", up)], now))
      .toEqual({ _tag: "Up", at: 5 * interval })
  })
})

describe("quorum all", () => {
  it("stays up while one region still succeeds, and goes down when every region fails", () => {
    expect(decide(monitor("up", "all"), [region("a", failing), region("b", failing), region("c", up)], now))
      .toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("up", "all"), [region("a", failingLonger), region("b", failing), region("c", failing)], now))
      .toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("is up again as soon as one region last succeeded", () => {
    expect(
      decide(monitor("down", "all"), [region("a", recovered), region("b", failing), region("c", failing)], now)
    ).toEqual({ _tag: "Up", at: 5 * interval })
  })
})

describe("quorum k", () => {
  it("goes down with at least k failing regions, not fewer", () => {
    const regions = (failingCount: number) =>
      ["a", "b", "c", "d"].map((name, i) => region(name, i < failingCount ? failing : up))
    expect(decide(monitor("up", 2), regions(1), now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("up", 2), regions(2), now)).toEqual({ _tag: "Down", since: 3 * interval })
    expect(decide(monitor("up", 3), regions(2), now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("up", 3), regions(3), now)).toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("is up again once n - k + 1 regions last succeeded, so fewer than k can be failing", () => {
    // k = 2 of 4: up needs 3 successes.
    const twoBack = [region("a", recovered), region("b", up), region("c", failing), region("d", failing)]
    expect(decide(monitor("down", 2), twoBack, now)).toEqual({ _tag: "Unchanged" })
    const threeBack = [region("a", recovered), region("b", up), region("c", recovered), region("d", failing)]
    expect(decide(monitor("down", 2), threeBack, now)).toEqual({ _tag: "Up", at: 5 * interval })
  })

  it("cannot go down with fewer reporting regions than k", () => {
    const regions = [region("a", failingLonger), region("b", failing)]
    expect(decide(monitor("up", 3), regions, now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("unknown", 3), regions, now)).toEqual({ _tag: "Unchanged" })
    // …and one success is enough to be up.
    expect(decide(monitor("down", 3), [region("a", failing), region("b", recovered)], now))
      .toEqual({ _tag: "Up", at: 5 * interval })
  })
})

describe("offline regions", () => {
  it("are no data: left out of the count, not failing", () => {
    const regions = [region("a", failing), region("b", failing), region("c", up)]
    expect(decide(monitor("up", "majority"), regions, now)).toEqual({ _tag: "Down", since: 3 * interval })
    // With a offline, b fails and c succeeds: no majority of the two either way.
    expect(decide(monitor("up", "majority"), regions, now, new Set(["a"]))).toEqual({ _tag: "Unchanged" })
    // With c offline, both reporting regions fail.
    expect(decide(monitor("up", "all"), regions, now, new Set(["c"]))).toEqual({ _tag: "Down", since: 3 * interval })
    // Every region offline: nothing to decide on.
    expect(decide(monitor("up", "any"), regions, now, new Set(["a", "b", "c"]))).toEqual({ _tag: "Unchanged" })
  })

  it("make a monitor that was down up from the regions still reporting", () => {
    const regions = [region("a", failing), region("b", recovered), region("c", up)]
    expect(decide(monitor("down", "any"), regions, now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("down", "any"), regions, now, new Set(["a"]))).toEqual({ _tag: "Up", at: 5 * interval })
  })

  it("are left out of the reporting regions, as are silent ones and those the monitor does not ask for", () => {
    const silent = region("d", [true]) // last checked at t = 1: more than two intervals ago
    const regions = [region("a", up), region("b", up), region("c", up), silent]
    expect(reportingRegions({ intervalSeconds: 60, regions: null }, regions, now).map((r) => r.region))
      .toEqual(["a", "b", "c"])
    expect(
      reportingRegions({ intervalSeconds: 60, regions: ["a", "b", "d"] }, regions, now, new Set(["b"]))
        .map((r) => r.region)
    ).toEqual(["a"])
  })
})

describe("degraded", () => {
  it("is a success slower than degradedAboveMs, never a failure, and never without a threshold", () => {
    expect(isDegraded(region("a", slow), 500)).toBe(true)
    expect(isDegraded(region("a", slow), 900)).toBe(false)
    expect(isDegraded(region("a", slow), null)).toBe(false)
    expect(isDegraded(region("a", failing), 1)).toBe(false)
  })

  it("puts the monitor in degraded when a quorum of regions is slow, and back up when they are fast", () => {
    const options = { degradedAboveMs: 500 }
    expect(decide(monitor("up", "majority", options), [region("a", slow), region("b", up), region("c", up)], now))
      .toEqual({ _tag: "Unchanged" })
    expect(
      decide(monitor("up", "majority", options), [region("a", slowFrom4), region("b", slow), region("c", up)], now)
    ).toEqual({ _tag: "Degraded", at: 5 * interval })
    expect(decide(monitor("up", "any", options), [region("a", slowFrom4), region("b", up)], now))
      .toEqual({ _tag: "Degraded", at: 5 * interval })
    expect(decide(monitor("degraded", "any", options), [region("a", slow), region("b", up)], now))
      .toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("degraded", "any", options), [region("a", up), region("b", up)], now))
      .toEqual({ _tag: "Up", at: 5 * interval })
    expect(decide(monitor("unknown", "all", options), [region("a", slow), region("b", slow)], now))
      .toEqual({ _tag: "Degraded", at: 5 * interval })
  })

  it("gives way to down, and a recovery that is slow leaves down for degraded, dated from the recovery", () => {
    const options = { degradedAboveMs: 500 }
    expect(decide(monitor("degraded", "any", options), [region("a", failing), region("b", slow)], now))
      .toEqual({ _tag: "Down", since: 3 * interval })
    const slowRecovery = [false, false, false, false, 900]
    expect(decide(monitor("down", "majority", options), [region("a", slowRecovery), region("b", slow)], now))
      .toEqual({ _tag: "Degraded", at: 5 * interval })
  })

  it("stays off without degradedAboveMs, however slow the checks", () => {
    expect(decide(monitor("up", "any"), [region("a", [900, 900, 900, 900, 60_000])], now)).toEqual({
      _tag: "Unchanged"
    })
  })
})

describe("component status from monitors", () => {
  it("is degraded when a monitor is degraded and none is down", () => {
    expect(statusFromMonitors(["up", "degraded"])).toBe("degraded")
    expect(statusFromMonitors(["degraded", "degraded"])).toBe("degraded")
    expect(statusFromMonitors(["down", "degraded"])).toBe("partial_outage")
    expect(statusFromMonitors(["down", "down"])).toBe("major_outage")
    expect(statusFromMonitors(["unknown", "up"])).toBe("operational")
    expect(statusFromMonitors([])).toBe("operational")
  })
})
