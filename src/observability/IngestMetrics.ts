/**
 * What one ingest batch counts, gathered while the batch is stored and recorded once its
 * transaction has committed: a batch that fails (and is read again) is not counted twice.
 */
import type { CheckResult, MissedCheck } from "../domain/CheckJob.js"
import {
  checkLabels,
  checksIngested,
  labelSets,
  monitorTransitions,
  noLabels,
  reportsRefused,
  resultsStored
} from "./Metrics.js"

const transitionLabels = labelSets("to")

export class IngestTally {
  private readonly checks = new Map<string, { region: string; outcome: string; count: number }>()
  private stored = 0
  refused = 0
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

  record() {
    if (this.stored > 0) resultsStored.unsafeUpdate(this.stored, noLabels)
    if (this.refused > 0) reportsRefused.unsafeUpdate(this.refused, noLabels)
    for (const { count, outcome, region } of this.checks.values()) {
      checksIngested.unsafeUpdate(count, checkLabels(region, outcome))
    }
    for (const to of ["up", "degraded", "down"] as const) {
      if (this.transitions[to] > 0) monitorTransitions.unsafeUpdate(this.transitions[to], transitionLabels(to))
    }
  }
}
