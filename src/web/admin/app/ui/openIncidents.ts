/**
 * How many incidents are open, for the navigation: read from the overview
 * (GET /api/v1/admin/overview) when the screen changes and whenever the live stream says
 * incidents changed (core/live.ts). A failed read gives null, and the count is not shown rather
 * than shown wrong.
 */
import { useEffect, useRef, useState } from "preact/hooks"

import { call } from "../core/api.js"
import { useLiveRefresh } from "../core/live.js"

const liveKinds = ["incidents"] as const

/** `route` is the current screen's address: each change reads the count afresh. */
export const useOpenIncidents = (route: string, enabled: boolean): number | null => {
  const [count, setCount] = useState<number | null>(null)
  // Answers may come back out of order: only the latest request's answer is shown.
  const latest = useRef(0)

  const load = async () => {
    if (!enabled) return
    const request = ++latest.current
    const outcome = await call((api) => api.overview.get())
    if (request === latest.current) setCount(outcome.ok ? outcome.value.counts.incidentsOpen : null)
  }

  useEffect(() => {
    void load()
    // An answer arriving after this is dropped.
    return () => void latest.current++
  }, [route, enabled])

  useLiveRefresh(liveKinds, load)

  return enabled ? count : null
}
