import { describe, expect, it } from "vitest"

import type { ComponentTimeline } from "../../src/domain/UptimeCalculation.js"
import { bucketUptime, uptimePercentage } from "../../src/domain/UptimeCalculation.js"

const minute = 60_000
const hour = 60 * minute
const bucket = { start: 0, end: hour }
const timeline = (overrides: Partial<ComponentTimeline>): ComponentTimeline => ({
  createdAt: -hour,
  statusChanges: [{ at: -hour, status: "operational" }],
  monitorCount: 0,
  downIntervals: [],
  ...overrides
})

describe("bucketUptime", () => {
  it("weighs the operator's statuses: major 100 %, partial 30 %, degraded and maintenance 0 %", () => {
    const changes = [
      { at: -hour, status: "operational" },
      { at: 0, status: "major_outage" },
      { at: 10 * minute, status: "partial_outage" },
      { at: 20 * minute, status: "degraded" },
      { at: 30 * minute, status: "maintenance" },
      { at: 40 * minute, status: "operational" }
    ] as const
    const result = bucketUptime(timeline({ statusChanges: changes }), bucket, 2 * hour)
    expect(result.observedSeconds).toBe(3600)
    expect(result.downtimeSeconds).toBeCloseTo(600 + 0.3 * 600)
  })

  it("carries the status in force before the bucket into it", () => {
    const result = bucketUptime(timeline({ statusChanges: [{ at: -hour, status: "major_outage" }] }), bucket, 2 * hour)
    expect(result.downtimeSeconds).toBe(3600)
  })

  it("measures a young component from its creation and the current bucket up to now", () => {
    const young = timeline({ createdAt: 15 * minute, statusChanges: [{ at: 15 * minute, status: "major_outage" }] })
    expect(bucketUptime(young, bucket, 2 * hour)).toEqual({ observedSeconds: 2700, downtimeSeconds: 2700 })
    expect(bucketUptime(young, bucket, 25 * minute)).toEqual({ observedSeconds: 600, downtimeSeconds: 600 })
    expect(bucketUptime(young, bucket, 10 * minute)).toEqual({ observedSeconds: 0, downtimeSeconds: 0 })
  })

  it("with monitors: all down is a major outage, some a partial one, and maintenance excuses both", () => {
    const monitored = timeline({
      monitorCount: 2,
      downIntervals: [
        { start: 0, end: 20 * minute },
        { start: 10 * minute, end: 30 * minute },
        { start: 50 * minute, end: null }
      ],
      statusChanges: [{ at: -hour, status: "operational" }, { at: 55 * minute, status: "maintenance" }]
    })
    // 0–10 one down, 10–20 both, 20–30 one, 50–55 one, 55–60 maintenance.
    const result = bucketUptime(monitored, bucket, 2 * hour)
    expect(result.downtimeSeconds).toBeCloseTo(0.3 * 600 + 600 + 0.3 * 600 + 0.3 * 300)
  })

  it("with monitors, ignores the status the operator set (except maintenance)", () => {
    const monitored = timeline({ monitorCount: 1, statusChanges: [{ at: -hour, status: "major_outage" }] })
    expect(bucketUptime(monitored, bucket, 2 * hour).downtimeSeconds).toBe(0)
  })

  it("rounds the percentage to three decimals and calls nothing observed 100", () => {
    expect(uptimePercentage(3600, 600)).toBe(83.333)
    expect(uptimePercentage(0, 0)).toBe(100)
    expect(uptimePercentage(100, 100)).toBe(0)
  })
})
