/** Which slots of a push monitor the deadline judge fails: pure, from the slot rule. */
import { describe, expect, it } from "@effect/vitest"

import { isSlot, slotAt } from "../../src/domain/Slots.js"
import { PushMonitorRow } from "../../src/persistence/PushMonitorsRepo.js"
import { overdueSlots } from "../../src/workers/PushDeadlines.js"

const id = "8d3c1f0e-push-monitor"
const monitor = (fields: Partial<PushMonitorRow> = {}) =>
  new PushMonitorRow({
    id,
    pushTokenHash: "h",
    intervalSeconds: 60,
    graceSeconds: 10,
    paused: false,
    createdAt: 1_800_000_000_000,
    resumedAt: null,
    lastRunAt: null,
    ...fields
  })

describe("push deadlines", () => {
  it("judge a slot once its interval and grace have passed, never the one the monitor was created in", () => {
    const created = monitor().createdAt
    const first = slotAt(id, 60_000, created) + 60_000
    expect(overdueSlots(monitor(), undefined, first + 60_000 + 9_999)).toEqual([])
    expect(overdueSlots(monitor(), undefined, first + 70_000)).toEqual([first])
    // Only the last two slots: after the service was away, the slots of that time stay without data.
    expect(overdueSlots(monitor(), undefined, first + 10 * 60_000 + 10_000)).toEqual([
      first + 8 * 60_000,
      first + 9 * 60_000
    ])
    // A slot with a run, or judged already, is not judged again.
    expect(overdueSlots(monitor({ lastRunAt: first }), undefined, first + 70_000)).toEqual([])
    expect(overdueSlots(monitor(), first, first + 70_000)).toEqual([])
  })

  it("judge the slots of the interval as it is now, after a run on the grid of the one before", () => {
    const created = monitor().createdAt
    // A run stored while the interval was 45 s: not on the 60 s grid.
    const oldGrid = slotAt(id, 45_000, created + 10 * 60_000)
    expect(isSlot(id, 60_000, oldGrid)).toBe(false)
    const now = oldGrid + 5 * 60_000
    const slots = overdueSlots(monitor({ lastRunAt: oldGrid }), undefined, now)
    expect(slots.length).toBeGreaterThan(0)
    for (const slot of slots) {
      expect(isSlot(id, 60_000, slot)).toBe(true)
      expect(slot).toBeGreaterThan(oldGrid)
    }
    // And what was judged on the old grid does not stop the new one either.
    expect(overdueSlots(monitor(), oldGrid, now).every((slot) => isSlot(id, 60_000, slot))).toBe(true)
  })
})
