/**
 * Live updates: one `EventSource` on the admin API's event stream (`GET /api/v1/admin/events`,
 * the session cookie riding along) while someone is signed in. Each `change` event says what a
 * change touched (components, incidents, maintenance, organization, monitors), and the screens
 * that show it read again (`useLiveRefresh`). A `ready` event opens every (re)connection: after a
 * loss, every screen reads again, since changes may have been missed meanwhile.
 *
 * The browser reconnects by itself after a network failure or when the server ends the stream
 * (it does every 15 minutes); an answer other than 200 (401 once the session has ended, a 429 or
 * 503 at a cap, the server restarting behind a proxy) closes the source for good, so this module
 * opens a new one, backing off. The state turns `lost` only when the stream stays down past
 * `lostAfter`.
 */
import { useEffect, useRef, useState } from "preact/hooks"

import { call } from "./api.js"

export type LiveKind = "components" | "incidents" | "maintenance" | "organization" | "monitors"

/** `connecting` before the first `ready`; `lost` after an error until the next `ready`. */
export type LiveState = "connecting" | "open" | "lost"

const eventsUrl = "/api/v1/admin/events"
const reconnectAfter = 5_000
const reconnectAtMost = 60_000
/** How long the stream may be down before the banner says the connection is lost. */
const lostAfter = 6_000

type Listener = (kinds: ReadonlySet<LiveKind>) => void

const listeners = new Set<Listener>()
const stateListeners = new Set<(state: LiveState) => void>()
let state: LiveState = "connecting"
let source: EventSource | null = null
let retry: ReturnType<typeof setTimeout> | undefined
let losing: ReturnType<typeof setTimeout> | undefined
let everConnected = false

const everything: ReadonlySet<LiveKind> = new Set([
  "components",
  "incidents",
  "maintenance",
  "organization",
  "monitors"
])

const setState = (next: LiveState) => {
  if (next === state) return
  state = next
  for (const listener of stateListeners) listener(next)
}

const tell = (kinds: ReadonlySet<LiveKind>) => {
  for (const listener of listeners) listener(kinds)
}

/** The kinds a `change` event's data names (a key present and not false); anything unreadable is everything. */
const kindsOf = (data: string): ReadonlySet<LiveKind> => {
  try {
    const touched: unknown = JSON.parse(data)
    if (typeof touched !== "object" || touched === null) return everything
    return new Set(
      [...everything].filter((kind) => kind in touched && (touched as Record<string, unknown>)[kind] !== false)
    )
  } catch {
    return everything
  }
}

/**
 * The wait before opening a source again after the server refused one: doubling from
 * `reconnectAfter` up to `reconnectAtMost`, each with up to a fifth more at random, so that the
 * clients a restart or a cap turned away do not come back all at once.
 */
const backoff = (attempt: number) => {
  const base = Math.min(reconnectAtMost, reconnectAfter * 2 ** attempt)
  return base + Math.random() * base * 0.2
}

let refused = 0

const close = () => {
  clearTimeout(retry)
  source?.close()
  source = null
}

const open = () => {
  const opened = new EventSource(eventsUrl)
  source = opened
  opened.addEventListener("ready", () => {
    refused = 0
    clearTimeout(losing)
    losing = undefined
    // Changes made while the stream was down are not sent again: every screen reads afresh.
    if (everConnected) tell(everything)
    everConnected = true
    setState("open")
  })
  opened.addEventListener("change", (event) => tell(kindsOf(event.data)))
  opened.addEventListener("error", () => {
    // The server ends a stream now and then (every 15 minutes) and the browser is back within
    // seconds: only a stream still down `lostAfter` after it first failed is a lost connection
    // worth a banner (the browser's retries fail meanwhile; they do not restart the wait).
    losing ??= setTimeout(() => setState("lost"), lostAfter)
    if (opened.readyState !== EventSource.CLOSED || source !== opened) return
    // Refused (401, 429, 503): an ended session shows as the sign-in form (any 401 of the API
    // does), else a new source, later and later.
    source = null
    void call((api) => api.auth.me())
    retry = setTimeout(open, backoff(refused++))
  })
}

/**
 * A tab hidden for `hiddenFor` lets go of its stream, and opens it again (reading everything
 * afresh) when shown: a forgotten background tab neither holds a place on the server nor keeps
 * its session from timing out for being idle.
 */
const hiddenFor = 60_000

/** Opens the stream while the dashboard is mounted (signed in); closes it when it is not. */
export const useLiveConnection = () => {
  useEffect(() => {
    let hiding: ReturnType<typeof setTimeout> | undefined
    const onVisibility = () => {
      clearTimeout(hiding)
      if (document.visibilityState === "hidden") {
        hiding = setTimeout(close, hiddenFor)
      } else if (source === null) {
        clearTimeout(retry)
        open()
      }
    }
    open()
    document.addEventListener("visibilitychange", onVisibility)
    return () => {
      document.removeEventListener("visibilitychange", onVisibility)
      clearTimeout(hiding)
      clearTimeout(losing)
      losing = undefined
      close()
      everConnected = false
      refused = 0
      state = "connecting"
    }
  }, [])
}

/** The connection's state, for the banner. */
export const useLiveState = (): LiveState => {
  const [current, setCurrent] = useState(state)
  useEffect(() => {
    setCurrent(state)
    stateListeners.add(setCurrent)
    return () => void stateListeners.delete(setCurrent)
  }, [])
  return current
}

/**
 * Calls `reload` whenever a change touches one of `kinds` (and after a reconnection). Changes
 * arriving while a reload is under way make one more reload when it ends, not one each; with
 * `atMostEvery` (ms), reloads start no closer together than that, so a screen that reads much
 * (every monitor's runs) is not read back to back through a flapping outage. Returns the same
 * runner, for a screen's own timer to go through it.
 */
export const useLiveRefresh = (
  kinds: ReadonlyArray<LiveKind>,
  reload: () => unknown,
  atMostEvery = 0
): () => void => {
  const latest = useRef(reload)
  latest.current = reload
  const runner = useRef<() => void>(() => undefined)
  // The same function at every render: a timer given it is not set again each time.
  const stable = useRef(() => runner.current())
  useEffect(() => {
    let running = false
    let again = false
    let lastStart = -Infinity
    let waiting: ReturnType<typeof setTimeout> | undefined
    const run = async () => {
      if (running || waiting !== undefined) {
        again = true
        return
      }
      const wait = lastStart + atMostEvery - performance.now()
      if (wait > 0) {
        waiting = setTimeout(() => {
          waiting = undefined
          void run()
        }, wait)
        return
      }
      running = true
      try {
        do {
          again = false
          lastStart = performance.now()
          await latest.current()
        } while (again && atMostEvery === 0)
      } finally {
        running = false
      }
      // Asked again meanwhile, with a spacing to keep: once more, when it allows.
      if (again) void run()
    }
    runner.current = () => void run()
    const listener: Listener = (touched) => {
      if (kinds.some((kind) => touched.has(kind))) void run()
    }
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
      clearTimeout(waiting)
    }
  }, [kinds.join(","), atMostEvery])
  return stable.current
}
