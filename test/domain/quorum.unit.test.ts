import { describe, expect, it } from "vitest"

import type { QuorumMonitor } from "../../src/domain/Quorum.js"
import { advanceRegion, decide, statusFromMonitors } from "../../src/domain/Quorum.js"
import { checkInterval as interval, regionStatus as region } from "../support/RegionStatuses.js"

const monitor = (state: QuorumMonitor["state"], regions: ReadonlyArray<string> | null = null): QuorumMonitor => ({
  state,
  intervalSeconds: 60,
  failureThreshold: 3,
  regions
})

const up = [true, true, true, true, true]
const failingFrom3 = [true, true, false, false, false]
const now = 5 * interval + 10

describe("region streaks", () => {
  it("count consecutive failures from the first failure, reset on success, ignore older checks", () => {
    const status = region("a", failingFrom3)
    expect(status).toMatchObject({ consecutiveFailures: 3, failingSince: 3 * interval, lastOk: false })
    const late = advanceRegion(status, {
      ...status,
      scheduledAt: 2 * interval,
      checkedAt: 0,
      ok: true,
      statusCode: 200,
      error: null,
      durationMs: 1
    })
    expect(late).toBe(status)
    const recovered = advanceRegion(status, {
      region: "a",
      scheduledAt: 6 * interval,
      checkedAt: 6 * interval,
      ok: true,
      statusCode: 200,
      error: null,
      durationMs: 1
    })
    expect(recovered).toMatchObject({ consecutiveFailures: 0, failingSince: null, lastOk: true })
  })
})

describe("region quorum", () => {
  it("stays up when only region A fails, and goes down when A and B fail", () => {
    expect(decide(monitor("up"), [region("a", failingFrom3), region("b", up), region("c", up)], now)).toEqual({
      _tag: "Unchanged"
    })
    expect(decide(monitor("up"), [region("a", failingFrom3), region("b", failingFrom3), region("c", up)], now))
      .toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("needs failureThreshold failures in a row", () => {
    const twoFailures = [true, true, true, false, false]
    expect(decide(monitor("up"), [region("a", twoFailures)], now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("up"), [region("a", failingFrom3)], now)).toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("dates the outage from when the quorum first held", () => {
    const longer = [false, false, false, false, false]
    const shorter = [true, true, false, false, false]
    expect(decide(monitor("up"), [region("a", longer), region("b", shorter), region("c", up)], now))
      .toEqual({ _tag: "Down", since: 3 * interval })
  })

  it("comes back up on a majority of successes", () => {
    const recovering = [false, false, false, true, true]
    expect(decide(monitor("down"), [region("a", recovering), region("b", failingFrom3), region("c", recovering)], now))
      .toEqual({ _tag: "Up", at: 5 * interval })
    expect(
      decide(monitor("down"), [region("a", recovering), region("b", failingFrom3), region("c", failingFrom3)], now)
    )
      .toEqual({ _tag: "Unchanged" })
  })

  it("counts only regions that reported within two intervals, and only the monitor's regions", () => {
    const silentB = region("b", up)
    const later = now + 3 * interval
    const aStillFailing = advanceRegion(region("a", failingFrom3), {
      region: "a",
      scheduledAt: later - 10,
      checkedAt: later - 5,
      ok: false,
      statusCode: 500,
      error: "HTTP 500",
      durationMs: 3
    })
    expect(decide(monitor("up"), [aStillFailing, silentB], later)).toMatchObject({ _tag: "Down" })
    expect(decide(monitor("up", ["b"]), [region("a", failingFrom3), region("b", up)], now)).toEqual({
      _tag: "Unchanged"
    })
    expect(decide(monitor("unknown"), [], now)).toEqual({ _tag: "Unchanged" })
    expect(decide(monitor("unknown"), [region("a", up)], now)).toEqual({ _tag: "Up", at: 5 * interval })
  })
})

describe("component status from monitors", () => {
  it("is a major outage when all are down, partial when some are", () => {
    expect(statusFromMonitors(["up", "unknown"])).toBe("operational")
    expect(statusFromMonitors(["down", "up"])).toBe("partial_outage")
    expect(statusFromMonitors(["down", "down"])).toBe("major_outage")
  })
})
