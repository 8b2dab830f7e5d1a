/**
 * What one ingest batch counts, gathered while the batch is stored and recorded once its
 * transaction has committed: a batch that fails (and is read again) is not counted twice.
 */
import type { CheckResult, MissedCheck, ProbeReport } from "../domain/CheckJob.js"
import type { RejectReason } from "../domain/ResultAdmission.js"
import { labelSets, noLabels } from "../runtime/MetricLabels.js"
import { checkLabels, checksIngested, monitorTransitions, reportsRefused, resultsStored } from "./Metrics.js"

const transitionLabels = labelSets("to")
const refusedLabels = labelSets("region", "reason")

/** A refused report, as the refusal log and the metrics see it. */
export interface Refusal {
  readonly report: ProbeReport
  readonly reason: RejectReason
}

export class IngestTally {
  private readonly checks = new Map<string, { region: string; outcome: string; count: number }>()
  private stored = 0
  /** The reports refused, by admission or as duplicates: counted and logged after the commit. */
  readonly refused: Array<Refusal> = []
  readonly transitions = { up: 0, degraded: 0, down: 0 }

  private add(region: string, outcome: string) {
    const key = `${region}\u0000${outcome}`
    const entry = this.checks.get(key)
    if (entry === undefined) this.checks.set(key, { region, outcome, count: 1 })
    else entry.count++
  }

  results(fresh: ReadonlyArray<CheckResult>) {
    this.stored += fresh.length
    for (const result of fresh) this.add(result.region, result.ok ? "ok" : "failed")
  }

  misses(misses: Iterable<MissedCheck>) {
    for (const miss of misses) this.add(miss.region, "missed")
  }

  refuse(refusals: Iterable<Refusal>) {
    for (const refusal of refusals) this.refused.push(refusal)
  }

  record() {
    if (this.stored > 0) resultsStored.updateUnsafe(this.stored, noLabels)
    const refused = new Map<string, { region: string; reason: string; count: number }>()
    for (const { reason, report: { region } } of this.refused) {
      const key = `${region}\u0000${reason}`
      const entry = refused.get(key)
      if (entry === undefined) refused.set(key, { region, reason, count: 1 })
      else entry.count++
    }
    for (const { count, reason, region } of refused.values()) {
      reportsRefused.updateUnsafe(count, refusedLabels(region, reason))
    }
    for (const { count, outcome, region } of this.checks.values()) {
      checksIngested.updateUnsafe(count, checkLabels(region, outcome))
    }
    for (const to of ["up", "degraded", "down"] as const) {
      if (this.transitions[to] > 0) monitorTransitions.updateUnsafe(this.transitions[to], transitionLabels(to))
    }
  }
}
