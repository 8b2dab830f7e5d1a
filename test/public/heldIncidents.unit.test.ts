/**
 * How the snapshot's held incidents take a change without reading them all again (patchHeld):
 * where a changed incident goes, when an incident that left the public forces a whole read, which
 * incidents the uptime bars hold, and which the set lets go of.
 */
import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"

import type { IncidentStatus } from "../../src/domain/Incident.js"
import { PublicIncident, PublicIncidentDetail } from "../../src/domain/Incident.js"
import type { HeldIncidents } from "../../src/public/state/PublicStatus.js"
import { heldResolved, patchHeld } from "../../src/public/state/PublicStatus.js"

const now = Date.UTC(2026, 10, 25, 12)
const day = 24 * 3600 * 1000

const incident = (id: string, createdAt: number, fields: { status?: IncidentStatus; resolvedAt?: number } = {}) =>
  new PublicIncidentDetail({
    id,
    title: `Incident ${id}`,
    status: fields.status ?? "investigating",
    severity: "minor",
    message: "x",
    componentIds: [],
    createdAt: DateTime.makeUnsafe(createdAt),
    updatedAt: DateTime.makeUnsafe(createdAt),
    resolvedAt: fields.resolvedAt === undefined ? null : DateTime.makeUnsafe(fields.resolvedAt),
    updates: [],
    postmortem: null
  })
const resolved = (id: string, createdAt: number) =>
  incident(id, createdAt, { status: "resolved", resolvedAt: createdAt + 3600 * 1000 })
const bar = ({ postmortem: _postmortem, updates: _updates, ...fields }: PublicIncidentDetail) =>
  new PublicIncident(fields)
const held = (details: ReadonlyArray<PublicIncidentDetail>, complete: boolean): HeldIncidents => ({
  details,
  complete,
  bars: details.filter((detail) => detail.resolvedAt === null || detail.resolvedAt.epochMilliseconds >= now - 91 * day)
    .map(bar)
})
const ids = (patched: HeldIncidents | undefined) => patched?.details.map((detail) => detail.id)

describe("patchHeld", () => {
  const before = held([incident("c", now - 1000), resolved("b", now - 2 * day), resolved("a", now - 200 * day)], false)

  it("keeps a changed incident in its place and puts a new one where the database's order does", () => {
    const renamed = new PublicIncidentDetail({ ...before.details[1]!, title: "Renamed" })
    const patched = patchHeld(before, [["b", Option.some(renamed)]], now)
    expect(ids(patched)).toEqual(["c", "b", "a"])
    expect(patched?.details[1]?.title).toBe("Renamed")
    // Newest first; in the same millisecond, the greater id first.
    expect(ids(patchHeld(before, [["d", Option.some(incident("d", now))]], now))).toEqual(["d", "c", "b", "a"])
    expect(ids(patchHeld(before, [["e", Option.some(resolved("e", now - 100 * day))]], now))).toEqual([
      "c",
      "b",
      "e",
      "a"
    ])
    expect(ids(patchHeld(before, [["bb", Option.some(resolved("bb", now - 2 * day))]], now))).toEqual([
      "c",
      "bb",
      "b",
      "a"
    ])
    expect(ids(patchHeld(before, [["aa", Option.some(resolved("aa", now - 2 * day))]], now))).toEqual([
      "c",
      "b",
      "aa",
      "a"
    ])
  })

  it("drops an incident that left the public only when every public incident is held; else all are read again", () => {
    expect(patchHeld(before, [["b", Option.none()]], now)).toBeUndefined()
    const complete = { ...before, complete: true }
    const patched = patchHeld(complete, [["b", Option.none()]], now)
    expect(ids(patched)).toEqual(["c", "a"])
    expect(patched?.bars.map((b) => b.id)).toEqual(["c"])
    expect(patched?.complete).toBe(true)
    // One that was not held changes nothing held.
    expect(ids(patchHeld(before, [["z", Option.none()]], now))).toEqual(["c", "b", "a"])
  })

  it("holds open and recently resolved incidents among the bars' ones, and lets go of those resolved before", () => {
    const patched = patchHeld(before, [
      ["d", Option.some(incident("d", now))],
      ["e", Option.some(resolved("e", now - 300 * day))],
      ["f", Option.some(resolved("f", now - 30 * day))]
    ], now)
    expect(patched?.bars.map((b) => b.id)).toEqual(["d", "c", "b", "f"])
    // Read when it was still within the bars' days; a day later it is not.
    expect(patchHeld(before, [], now + 91 * day)?.bars.map((b) => b.id)).toEqual(["c"])
  })

  it("lets go of resolved incidents that can no longer be the newest resolved or the latest updated", () => {
    // The newest resolved ones, each updated when created.
    const newest = Array.from({ length: heldResolved }, (_, i) => resolved(`r${i}`, now - (i + 1) * day))
    // Older ones, one of them updated lately (among the feeds'), one created in the same
    // millisecond as the oldest of the newest (the database tells them apart, not the snapshot).
    const lately = new PublicIncidentDetail({
      ...resolved("lately", now - 500 * day),
      updatedAt: DateTime.makeUnsafe(now - 1000)
    })
    const tie = resolved("r99a", now - heldResolved * day)
    const older = resolved("older", now - 400 * day)
    const full: HeldIncidents = { details: [...newest, tie, older, lately], complete: true, bars: [] }
    const renamed = new PublicIncidentDetail({ ...newest[0]!, title: "Renamed" })
    const patched = patchHeld(full, [["r0", Option.some(renamed)]], now)
    expect(ids(patched)).toEqual([...newest.map((d) => d.id), "r99a", "lately"])
    expect(patched?.complete).toBe(false)
    // Nothing let go: every public incident is still held.
    const few = held(newest.slice(0, 10), true)
    expect(patchHeld(few, [["n", Option.some(resolved("n", now))]], now)?.complete).toBe(true)
  })
})
