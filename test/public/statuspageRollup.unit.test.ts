/**
 * Statuspage's blended page status (`status.indicator` and its description) from our components
 * and unresolved incidents, and which request URLs name a Statuspage document.
 */
import { describe, expect, it } from "vitest"

import type { ComponentStatus } from "../../src/domain/Component.js"
import { PublicComponent } from "../../src/domain/Component.js"
import type { IncidentSeverity } from "../../src/domain/Incident.js"
import { componentStatus, rollup } from "../../src/public/StatuspageDocuments.js"
import { documentPath } from "../../src/public/StatuspageResponses.js"

const components = (...statuses: ReadonlyArray<ComponentStatus>) =>
  statuses.map((status, i) =>
    new PublicComponent({ id: `c${i}`, name: `C${i}`, description: "", status, displayOrder: i, groupId: null })
  )

describe("rollup", () => {
  const cases: ReadonlyArray<
    readonly [ReadonlyArray<ComponentStatus>, ReadonlyArray<IncidentSeverity>, string, string]
  > = [
    [[], [], "none", "All Systems Operational"],
    [["operational", "operational"], [], "none", "All Systems Operational"],
    [["operational", "maintenance"], [], "none", "Service Under Maintenance"],
    [["degraded", "maintenance"], [], "minor", "Partially Degraded Service"],
    [["degraded", "partial_outage"], [], "minor", "Minor Service Outage"],
    [["operational", "major_outage"], [], "major", "Partial System Outage"],
    [["major_outage", "major_outage"], [], "critical", "Major System Outage"],
    // An unresolved incident raises the page to its impact, never lowers it.
    [["operational"], ["none"], "none", "All Systems Operational"],
    [["operational"], ["minor", "major"], "major", "Partial System Outage"],
    [["degraded"], ["critical"], "critical", "Major System Outage"],
    [["major_outage"], ["minor"], "critical", "Major System Outage"],
    [["operational", "major_outage"], ["minor"], "major", "Partial System Outage"]
  ]
  for (const [statuses, impacts, indicator, description] of cases) {
    it(`${statuses.join(", ") || "no components"}; incidents ${impacts.join(", ") || "none"}: ${indicator}`, () => {
      expect(rollup(components(...statuses), impacts)).toEqual({ indicator, description })
    })
  }

  it("names our component statuses as Statuspage does", () => {
    expect(componentStatus).toEqual({
      operational: "operational",
      degraded: "degraded_performance",
      partial_outage: "partial_outage",
      major_outage: "major_outage",
      maintenance: "under_maintenance"
    })
  })
})

describe("documentPath", () => {
  it("reads the documents' paths, ignoring the query", () => {
    expect(documentPath("/api/v2/summary.json")).toBe("/summary.json")
    expect(documentPath("/api/v2/summary.json?_=1700000000000")).toBe("/summary.json")
    expect(documentPath("/api/v2/scheduled-maintenances/active.json?a=b&c")).toBe(
      "/scheduled-maintenances/active.json"
    )
  })

  it("names no document for any other URL", () => {
    for (const url of ["/api/v2/", "/api/v2/summary", "/api/v2/summary.json/x", "/api/v1/status", "/summary.json"]) {
      expect(documentPath(url), url).toBeUndefined()
    }
  })
})
