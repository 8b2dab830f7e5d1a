import { describe, expect, it } from "vitest"

import {
  type AutomationView,
  defaultTitle,
  durationInWords,
  nextStep,
  outageEvidence,
  publicFinding,
  relapseQuietMs
} from "../../src/domain/AutomaticIncident.js"

const now = 1_000_000_000
const view = (fields: Partial<AutomationView>): AutomationView => ({
  state: "down",
  paused: false,
  policy: "publish",
  resolveAfterSeconds: 300,
  stateChangedAt: now - 1000,
  incident: null,
  covered: false,
  ...fields
})

describe("nextStep", () => {
  it("opens for a monitor down with a policy, once per outage", () => {
    expect(nextStep(view({}), now)).toBe("open")
    expect(nextStep(view({ policy: "draft" }), now)).toBe("open")
    expect(nextStep(view({ policy: "off" }), now)).toBe("none")
    expect(nextStep(view({ paused: true }), now)).toBe("none")
    expect(nextStep(view({ covered: true }), now)).toBe("none")
    for (const state of ["up", "degraded", "unknown"] as const) expect(nextStep(view({ state }), now)).toBe("none")
  })

  it("says recovered once, resolves after the wait only while active, and comes back on a flap", () => {
    const open = { automation: "active" as const, upSince: null, notedAt: now - 1000, relapses: 0 }
    expect(nextStep(view({ incident: open }), now)).toBe("none")
    expect(nextStep(view({ state: "up", incident: open }), now)).toBe("recovered")
    expect(nextStep(view({ state: "degraded", incident: open }), now)).toBe("recovered")
    expect(nextStep(view({ state: "unknown", incident: open }), now)).toBe("none")
    const recovered = { ...open, upSince: now - 299_999 }
    const up = { state: "up" as const, stateChangedAt: recovered.upSince }
    expect(nextStep(view({ ...up, incident: recovered }), now)).toBe("none")
    const longUp = now - 300_000
    expect(nextStep(view({ ...up, stateChangedAt: longUp, incident: { ...recovered, upSince: longUp } }), now))
      .toBe("resolve")
    expect(
      nextStep(
        view({ ...up, stateChangedAt: now, resolveAfterSeconds: 0, incident: { ...recovered, upSince: now } }),
        now
      )
    ).toBe("resolve")
    // The first relapse is told at once.
    expect(nextStep(view({ state: "down", incident: recovered }), now)).toBe("downAgain")
    const handedOver = { ...open, automation: "handed_over" as const, upSince: now - 10_000_000 }
    expect(nextStep(view({ state: "up", stateChangedAt: handedOver.upSince, incident: handedOver }), now)).toBe("none")
    expect(nextStep(view({ state: "down", incident: handedOver }), now)).toBe("downAgain")
    // The policy only decides the opening: an open incident is followed through when it is off.
    expect(nextStep(view({ state: "up", policy: "off", incident: open }), now)).toBe("recovered")
  })

  it("tells later relapses no sooner than the quiet time after the last update; an untold one restarts the wait", () => {
    const flapping = { automation: "active" as const, upSince: now - 60_000, notedAt: now - 60_000, relapses: 1 }
    expect(nextStep(view({ state: "down", incident: flapping }), now)).toBe("none")
    expect(nextStep(view({ state: "down", incident: { ...flapping, notedAt: now - relapseQuietMs } }), now))
      .toBe("downAgain")
    // It went down and came back before the relapse was told: the monitor is up since it came back.
    expect(nextStep(view({ state: "up", stateChangedAt: now - 1000, incident: flapping }), now)).toBe("upAgain")
    expect(nextStep(view({ state: "up", stateChangedAt: flapping.upSince, incident: flapping }), now)).toBe("none")
  })
})

describe("the words of automatic updates", () => {
  it("name what a check saw without its raw error", () => {
    expect(publicFinding({ statusCode: 503, error: "expected status 200, got 503" })).toBe("HTTP 503")
    expect(publicFinding({ statusCode: 200, error: "the body does not contain \"ok\"" })).toBe(
      "HTTP 200, unexpected content"
    )
    expect(publicFinding({ statusCode: null, error: "timed out after 10000 ms" })).toBe("timed out")
    expect(publicFinding({ statusCode: null, error: "ECONNREFUSED: connect ECONNREFUSED 10.1.2.3:8080" })).toBe(
      "connection refused"
    )
    expect(publicFinding({ statusCode: null, error: "getaddrinfo ENOTFOUND db.internal" })).toBe("DNS lookup failed")
    expect(publicFinding({ statusCode: null, error: "certificate has expired" })).toBe("TLS failure")
    expect(publicFinding({ statusCode: null, error: "Authorization: Bearer abc refused" })).toBe("check failed")
    expect(publicFinding({ statusCode: null, error: null })).toBe("check failed")
  })

  it("list the failing regions among those that count", () => {
    expect(outageEvidence([
      { region: "eu", ok: false, statusCode: 500, error: "x" },
      { region: "us", ok: true, statusCode: 200, error: null },
      { region: "ap", ok: false, statusCode: null, error: "socket hang up" }
    ])).toBe("Our checks fail from 2 of 3 regions: eu (HTTP 500) and ap (connection reset).")
    expect(outageEvidence([])).toBe("Our checks fail.")
  })

  it("fit a title in 200 characters and put a wait in words", () => {
    expect(defaultTitle("API", "partial_outage")).toBe("API has a partial outage")
    expect(defaultTitle("API", "degraded")).toBe("API is failing checks")
    const long = defaultTitle("x".repeat(200), "major_outage")
    expect(long).toHaveLength(200)
    expect(long.endsWith("… is down")).toBe(true)
    // The schema counts UTF-16 units: 100 emoji are 200 of them, and none is cut in two.
    const emoji = defaultTitle("😀".repeat(100), "partial_outage")
    expect(emoji.length).toBeLessThanOrEqual(200)
    expect(emoji).toMatch(/^(😀)+… has a partial outage$/u)
    expect(durationInWords(300)).toBe("5 minutes")
    expect(durationInWords(5430)).toBe("1 hour 30 minutes 30 seconds")
    expect(durationInWords(1)).toBe("1 second")
  })
})
