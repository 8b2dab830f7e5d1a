import { advanceRegion, type RegionStatus } from "../../src/domain/Quorum.js"

/** The interval of the checks `regionStatus` runs. */
export const checkInterval = 60_000

/** The status of region `name` after checks at t = 1, 2, … intervals: true/false, or the milliseconds of a success. */
export const regionStatus = (name: string, outcomes: ReadonlyArray<boolean | number>): RegionStatus => {
  let status: RegionStatus | undefined
  outcomes.forEach((outcome, i) => {
    const ok = outcome !== false
    status = advanceRegion(status, {
      region: name,
      scheduledAt: (i + 1) * checkInterval,
      checkedAt: (i + 1) * checkInterval + 5,
      ok,
      statusCode: ok ? 200 : 500,
      error: ok ? null : "expected status 200, got 500",
      durationMs: typeof outcome === "number" ? outcome : 12
    })
  })
  return status!
}
