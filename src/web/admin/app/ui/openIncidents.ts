/**
 * How many incidents are open, for the navigation: read from the overview
 * (GET /api/v1/admin/overview) when the screen changes and every 30 seconds while the tab is
 * visible (at once when it is shown again). A failed read gives null, and the count is not shown
 * rather than shown wrong.
 */
import { useEffect, useRef, useState } from "preact/hooks"

import { call } from "../core/api.js"

export const openIncidentsRefreshEvery = 30_000

/** `route` is the current screen's address: each change reads the count afresh. */
export const useOpenIncidents = (route: string, enabled: boolean): number | null => {
  const [count, setCount] = useState<number | null>(null)
  // Answers may come back out of order: only the latest request's answer is shown.
  const latest = useRef(0)

  const load = async () => {
    const request = ++latest.current
    const outcome = await call((api) => api.overview.get())
    if (request === latest.current) setCount(outcome.ok ? outcome.value.counts.incidentsOpen : null)
  }

  useEffect(() => {
    if (enabled) void load()
  }, [route, enabled])

  useEffect(() => {
    if (!enabled) return
    const visible = () => document.visibilityState === "visible"
    const timer = setInterval(() => {
      if (visible()) void load()
    }, openIncidentsRefreshEvery)
    const onVisibility = () => {
      if (visible()) void load()
    }
    document.addEventListener("visibilitychange", onVisibility)
    return () => {
      clearInterval(timer)
      document.removeEventListener("visibilitychange", onVisibility)
      // An answer arriving after this is dropped.
      latest.current++
    }
  }, [enabled])

  return enabled ? count : null
}
