/**
 * The recent runs behind the Monitors screen's heartbeat bars: read for a monitor once its bar is
 * first shown (a fleet of hundreds asks only for the bars scrolled into view), and read again,
 * for the bars shown so far, whenever the screen reloads.
 */
import { useCallback, useRef, useState } from "preact/hooks"

import type { MonitorId, MonitorRun } from "../../../../domain/Monitor.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { heartbeatLength } from "../ui/HeartbeatBar.js"

/** A monitor's runs as last read (null before the first answer) and the last read's failure. */
/** Bars read at once when the screen reads them again. */
const readsAtOnce = 4

export interface RecentRuns {
  readonly runs: ReadonlyArray<MonitorRun> | null
  readonly failure: Failure | null
}

export const useRecentRuns = () => {
  const [byMonitor, setByMonitor] = useState<ReadonlyMap<MonitorId, RecentRuns>>(new Map())
  const shown = useRef(new Set<MonitorId>())
  // The latest read per monitor: an earlier read answering after it is dropped.
  const latest = useRef(new Map<MonitorId, number>())

  const read = useCallback(async (id: MonitorId) => {
    const ticket = (latest.current.get(id) ?? 0) + 1
    latest.current.set(id, ticket)
    const outcome = await call((api) => api.monitors.results({ params: { id }, query: { limit: heartbeatLength } }))
    if (latest.current.get(id) !== ticket || !shown.current.has(id)) return
    setByMonitor((previous) => {
      const before = previous.get(id)
      // A failed read keeps the runs read before, and says it failed.
      const next: RecentRuns = outcome.ok
        ? { runs: outcome.value, failure: null }
        : { runs: before?.runs ?? null, failure: outcome.failure }
      return new Map(previous).set(id, next)
    })
  }, [])

  /** The bar of `id` is on screen: read its runs, the first time. */
  const show = useCallback((id: MonitorId) => {
    if (shown.current.has(id)) return
    shown.current.add(id)
    void read(id)
  }, [read])

  /** Reads again the runs of the bars shown so far, of the monitors `listed` (the others are gone). */
  const refresh = useCallback(async (listed: ReadonlyArray<MonitorId>) => {
    const still = new Set(listed)
    for (const id of shown.current) if (!still.has(id)) shown.current.delete(id)
    // A few at a time, so a long list does not take every connection the operator's own
    // requests (a save, a pause) need.
    const queue = [...shown.current]
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await read(id)
    }
    await Promise.all(Array.from({ length: Math.min(readsAtOnce, queue.length) }, worker))
  }, [read])

  return { byMonitor, show, refresh }
}
