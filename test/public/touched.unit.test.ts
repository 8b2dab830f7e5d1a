/**
 * What changes say they touched, merged over a burst and read from another instance's notice:
 * a refresh reads again a bounded number of incidents one by one, however many changes or
 * notices named them, and a notice's ids are ones PostgreSQL can compare.
 */
import { Option, Schema } from "effect"
import { describe, expect, it } from "vitest"

import type { Touched as TouchedType } from "../../src/services/StateChanges.js"
import { maxTouchedComponents, maxTouchedIncidents, mergeTouched, Touched } from "../../src/services/StateChanges.js"

const incidents = (from: number, count: number) => Array.from({ length: count }, (_, i) => `incident-${from + i}`)
const decode = Schema.decodeUnknownOption(Touched)

describe("touched", () => {
  it("merges the incidents of a burst, and reads them all at once past the bound", () => {
    expect(mergeTouched({ incidents: ["a", "b"] }, { incidents: ["b", "c"], components: true })).toEqual({
      incidents: ["a", "b", "c"],
      components: true
    })
    // One change after the other, each naming its own incident: the pending list stops growing.
    let pending: TouchedType = {}
    for (const id of incidents(0, maxTouchedIncidents)) pending = mergeTouched(pending, { incidents: [id] })
    expect(pending.incidents).toHaveLength(maxTouchedIncidents)
    pending = mergeTouched(pending, { incidents: ["one more"] })
    expect(pending.incidents).toBe("all")
    expect(mergeTouched(pending, { incidents: ["later"] }).incidents).toBe("all")
  })

  it("merges the components a burst names, and reads them all past the bound or when one change touched all", () => {
    expect(mergeTouched({ components: ["a"] }, { components: ["a", "b"] })).toEqual({ components: ["a", "b"] })
    expect(mergeTouched({ components: ["a"] }, { components: true })).toEqual({ components: true })
    expect(mergeTouched({ components: false }, {})).toEqual({})
    let pending: TouchedType = {}
    for (const id of incidents(0, maxTouchedComponents)) pending = mergeTouched(pending, { components: [id] })
    expect(pending.components).toHaveLength(maxTouchedComponents)
    expect(mergeTouched(pending, { components: ["one more"] }).components).toBe(true)
    expect(decode({ components: incidents(0, maxTouchedComponents + 1) })).toEqual(Option.none())
    expect(decode({ components: ["c-1"], monitors: true })).toEqual(
      Option.some({ components: ["c-1"], monitors: true })
    )
  })

  it("reads no notice that names more incidents than the bound, or an id PostgreSQL refuses", () => {
    expect(decode({ incidents: incidents(0, maxTouchedIncidents) })).toEqual(
      Option.some({ incidents: incidents(0, maxTouchedIncidents) })
    )
    expect(decode({ incidents: incidents(0, 2000) })).toEqual(Option.none())
    expect(decode({ incidents: ["x\u0000"] })).toEqual(Option.none())
    expect(decode({ incidents: ["x".repeat(101)] })).toEqual(Option.none())
    expect(decode({ incidents: "all", organization: true })).toEqual(
      Option.some({ incidents: "all", organization: true })
    )
  })
})
