/**
 * The rules of incidents opened by monitors (docs/status-model.md, "Automatic incidents"), pure
 * so they are tested alone: what the automation does next for a monitor, and the words of its
 * updates. The updates are public (when the incident is), so they say what the regions saw in
 * fixed words, never a check's raw error, which may quote a URL, a host or a response body.
 */
import type { IncidentPolicy } from "./Monitor.js"
import type { MonitorState } from "./Quorum.js"

/** A monitor and its open automatic incident, as the automation reads them. */
export interface AutomationView {
  readonly state: MonitorState
  readonly paused: boolean
  readonly policy: IncidentPolicy
  readonly resolveAfterSeconds: number
  /** When the monitor entered its state. */
  readonly stateChangedAt: number | null
  /** The open automatic incident; null when there is none. */
  readonly incident: {
    readonly automation: "active" | "handed_over"
    /** Since when the incident has seen the monitor up again; null while it is down. */
    readonly upSince: number | null
    /** When the automation last added an update to it. */
    readonly notedAt: number
    /** How many relapses it has told. */
    readonly relapses: number
  } | null
  /** An automatic incident, open or resolved, already covers the monitor's current outage. */
  readonly covered: boolean
}

export type AutomationStep =
  /** The monitor went down: open an incident. */
  | "open"
  /** The monitor is up again: say so (status `monitoring` while the automation is active). */
  | "recovered"
  /** Down again before the incident was resolved: back to `investigating`, the same incident. */
  | "downAgain"
  /** Up for `resolveAfterSeconds`: resolve (only while the automation is active). */
  | "resolve"
  /** Up again after a relapse the incident did not tell (too soon after its last update): the wait starts again. */
  | "upAgain"
  | "none"

/**
 * How long after the automation's last update a relapse after the first is told: a flapping monitor
 * then writes at most two automatic updates (down again, recovered) per 5 minutes, not two per
 * interval, each one mailed to every subscriber. A relapse that is over before then is not told.
 */
export const relapseQuietMs = 5 * 60 * 1000

/**
 * What comes next. An outage opens one incident at most: once one covers it (an operator may have
 * resolved it while the monitor is still down), the next opens only after the monitor has been
 * up. A paused or unchecked monitor moves nothing. Degraded is up: it is not an outage. The first
 * relapse is told at once, later ones no sooner than `relapseQuietMs` after the automation's last update.
 */
export const nextStep = (view: AutomationView, now: number): AutomationStep => {
  const { incident } = view
  if (incident === null) {
    return view.state === "down" && !view.paused && view.policy !== "off" && !view.covered ? "open" : "none"
  }
  if (view.state === "down") {
    if (incident.upSince === null) return "none"
    return incident.relapses > 0 && now - incident.notedAt < relapseQuietMs ? "none" : "downAgain"
  }
  if (view.state !== "up" && view.state !== "degraded") return "none"
  if (incident.upSince === null) return "recovered"
  // Down and up again unseen: the monitor has been up only since it came back.
  if (view.stateChangedAt !== null && view.stateChangedAt > incident.upSince) return "upAgain"
  return incident.automation === "active" && now - incident.upSince >= view.resolveAfterSeconds * 1000
    ? "resolve"
    : "none"
}

/** What a region's last check saw, as the public may read it. */
export interface RegionFinding {
  readonly region: string
  readonly ok: boolean
  readonly statusCode: number | null
  readonly error: string | null
}

/**
 * A failed check in fixed words: the status code when the check got an answer, else the kind of
 * network failure its error names, else "check failed". Raw errors stay in the admin API.
 */
export const publicFinding = (finding: Pick<RegionFinding, "statusCode" | "error">): string => {
  const error = finding.error ?? ""
  if (/timed out|timeout|ETIMEDOUT/i.test(error)) return "timed out"
  if (/ECONNREFUSED/.test(error)) return "connection refused"
  if (/ECONNRESET|EPIPE|socket hang up/i.test(error)) return "connection reset"
  if (/ENOTFOUND|EAI_AGAIN|ESERVFAIL|ENODATA|NXDOMAIN|getaddrinfo/i.test(error)) return "DNS lookup failed"
  if (/certificate|CERT_|TLS|SSL/i.test(error)) return "TLS failure"
  if (finding.statusCode !== null) {
    return /body|contain/i.test(error) ? `HTTP ${finding.statusCode}, unexpected content` : `HTTP ${finding.statusCode}`
  }
  if (/EHOSTUNREACH|ENETUNREACH/.test(error)) return "host unreachable"
  return "check failed"
}

/** "a", "a and b", "a, b and c". */
const listOf = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/** The evidence of an outage: which regions fail and what they saw. */
export const outageEvidence = (regions: ReadonlyArray<RegionFinding>): string => {
  const failing = regions.filter((region) => !region.ok)
  if (failing.length === 0) return "Our checks fail."
  const seen = failing.map((region) => `${region.region} (${publicFinding(region)})`)
  return `Our checks fail from ${failing.length} of ${regions.length} ${regions.length === 1 ? "region" : "regions"}: ${
    listOf(seen)
  }.`
}

/** The first update of an automatic incident: the template's message, if any, then the evidence. */
export const openingMessage = (templateMessage: string | null, regions: ReadonlyArray<RegionFinding>) =>
  [templateMessage, `${outageEvidence(regions)} We are investigating.`].filter((part) => part !== null).join("\n\n")

export const recoveredMessage = "Our checks succeed again. We are monitoring the recovery."

export const downAgainMessage = (regions: ReadonlyArray<RegionFinding>) =>
  `The problem is back. ${outageEvidence(regions)} We are investigating.`

/** "5 minutes", "1 hour 30 minutes", "45 seconds". */
export const durationInWords = (seconds: number): string => {
  const parts: Array<string> = []
  const units: ReadonlyArray<readonly [number, string]> = [[3600, "hour"], [60, "minute"], [1, "second"]]
  let rest = seconds
  for (const [size, name] of units) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count > 0) parts.push(`${count} ${name}${count === 1 ? "" : "s"}`)
  }
  return parts.length === 0 ? "0 seconds" : parts.join(" ")
}

export const resolvedMessage = (resolveAfterSeconds: number) =>
  resolveAfterSeconds === 0
    ? "Our checks succeed again. This incident is resolved."
    : `Our checks have succeeded for ${durationInWords(resolveAfterSeconds)}. This incident is resolved.`

/**
 * Without a template: the title says what the component shows, within the 200 UTF-16 units a
 * title may have (as the schema counts), never cutting a character in two.
 */
export const defaultTitle = (componentName: string, componentStatus: string) => {
  const says = componentStatus === "major_outage"
    ? " is down"
    : componentStatus === "partial_outage"
    ? " has a partial outage"
    : " is failing checks"
  if (componentName.length + says.length <= 200) return componentName + says
  let name = ""
  for (const character of componentName) {
    if (name.length + character.length + 1 + says.length > 200) break
    name += character
  }
  return `${name}…${says}`
}

/** Without a template: `major` for a major outage, else `minor`. */
export const defaultSeverity = (componentStatus: string) => componentStatus === "major_outage" ? "major" : "minor"
