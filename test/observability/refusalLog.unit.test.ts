/**
 * The refusal log gathers refused reports per probe and writes one line per probe with the
 * counts by reason: a flood is a line, and names made up by a region's reports share one line
 * beyond the first `probesPerRegion`.
 */
import { describe, expect, it } from "@effect/vitest"

import { CheckResult, jobIdOf } from "../../src/domain/CheckJob.js"
import { otherProbes, probesPerRegion, RefusalLog } from "../../src/observability/RefusalLog.js"
import { checkResult } from "../support/CheckResults.js"

const at = 1_700_000_000_000
const report = (region: string, probe: string, scheduledAt = at) =>
  CheckResult.make({ ...checkResult("m1", region, scheduledAt, false), probe })

describe("refusal log", () => {
  it("writes one line per probe with the counts by reason and a few examples, then starts afresh", () => {
    const log = new RefusalLog()
    expect(log.isEmpty).toBe(true)
    log.add(Array.from({ length: 1_000 }, (_, i) => ({ report: report("eu", "p1", at - i), reason: "too_late" })))
    log.add([{ report: report("eu", "p1"), reason: "duplicate" }, { report: report("us", "p1"), reason: "duplicate" }])
    const lines = log.take()
    expect(lines.map(({ counts, probe, region, total }) => ({ region, probe, counts, total }))).toEqual([
      { region: "eu", probe: "p1", counts: { too_late: 1_000, duplicate: 1 }, total: 1_001 },
      { region: "us", probe: "p1", counts: { duplicate: 1 }, total: 1 }
    ])
    expect(lines[0]!.examples).toEqual([0, 1, 2].map((i) => `too_late ${jobIdOf("m1", at - i)}`))
    expect(log.isEmpty).toBe(true)
    expect(log.take()).toEqual([])
  })

  it("gives the first probes of a region a line each, and the rest of that region one line", () => {
    const log = new RefusalLog()
    const names = Array.from({ length: probesPerRegion + 30 }, (_, i) => `minted-${i}`)
    log.add(names.map((name) => ({ report: report("eu", name), reason: "before_creation" })))
    log.add([{ report: report("us", "honest-1"), reason: "too_late" }])
    const lines = log.take()
    expect(lines.filter((line) => line.region === "eu")).toHaveLength(probesPerRegion + 1)
    expect(lines.find((line) => line.probe === otherProbes)).toMatchObject({
      region: "eu",
      total: 30,
      counts: { before_creation: 30 }
    })
    // Another region's probe keeps its own line.
    expect(lines.find((line) => line.region === "us")).toMatchObject({ probe: "honest-1", total: 1 })
  })
})
