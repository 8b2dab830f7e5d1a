/**
 * The log of refused probe reports: what ingest refused, gathered per probe (its region, and the
 * name its reports give) and written as one line per probe at most once a minute, with the counts
 * by reason, never a line per report. A flood of forged reports writes a line a minute. The names
 * come from the reports, so a region's lines are capped: the probes beyond the first
 * `probesPerRegion` of a minute share one line.
 */
import type { Refusal } from "./IngestMetrics.js"

/** Probes of one region with a line of their own per minute; the others share one. */
export const probesPerRegion = 20
/** The probe of the line the others of a region share; no probe's name holds parentheses. */
export const otherProbes = "(other probes)"
const examplesPerLine = 3

/** One line: a probe's refusals since its last line. */
export interface RefusalLine {
  readonly region: string
  readonly probe: string
  readonly counts: Record<string, number>
  readonly total: number
  /** A few of them: reason, job id (cut to 128 characters). */
  readonly examples: ReadonlyArray<string>
}

interface Pending {
  readonly region: string
  readonly probe: string
  readonly counts: Record<string, number>
  total: number
  readonly examples: Array<string>
}

export class RefusalLog {
  private readonly pending = new Map<string, Pending>()
  private readonly probesOf = new Map<string, number>()

  /** Adds refusals to their probes' next lines. */
  add(refusals: Iterable<Refusal>): void {
    for (const { reason, report } of refusals) {
      let key = `${report.region}\u0000${report.probe}`
      let entry = this.pending.get(key)
      if (entry === undefined) {
        const probes = this.probesOf.get(report.region) ?? 0
        const probe = probes < probesPerRegion ? report.probe : otherProbes
        if (probe === otherProbes) key = `${report.region}\u0000${otherProbes}`
        else this.probesOf.set(report.region, probes + 1)
        entry = this.pending.get(key)
        if (entry === undefined) {
          entry = { region: report.region, probe, counts: {}, total: 0, examples: [] }
          this.pending.set(key, entry)
        }
      }
      entry.counts[reason] = (entry.counts[reason] ?? 0) + 1
      entry.total++
      if (entry.examples.length < examplesPerLine) entry.examples.push(`${reason} ${report.jobId.slice(0, 128)}`)
    }
  }

  get isEmpty(): boolean {
    return this.pending.size === 0
  }

  /** The lines due, one per probe, and forgets them. */
  take(): ReadonlyArray<RefusalLine> {
    const lines = [...this.pending.values()]
    this.pending.clear()
    this.probesOf.clear()
    return lines
  }
}
