/**
 * Live updates: one `EventSource` on the admin API's event stream (`GET /api/v1/admin/events`,
 * the session cookie riding along) while someone is signed in. Each `change` event says what a
 * change touched (components, incidents, maintenance, organization, monitors), and the screens
 * that show it read again (`useLiveRefresh`). A `ready` event opens every (re)connection: after a
 * loss, every screen reads again, since changes may have been missed meanwhile.
 *
 * The browser reconnects by itself after a network failure or when the server ends the stream
 * (it does every 15 minutes); an answer other than 200 (the server restarting behind a proxy, a
 * 503 when streams are capped) closes the source for good, so this module opens a new one after
 * `reconnectAfter`. The state turns `lost` only when the stream stays down past `lostAfter`.
 */
import { useEffect, useRef, useState } from "preact/hooks"

export type LiveKind = "components" | "incidents" | "maintenance" | "organization" | "monitors"

/** `connecting` before the first `ready`; `lost` after an error until the next `ready`. */
export type LiveState = "connecting" | "open" | "lost"

const eventsUrl = "/api/v1/admin/events"
const reconnectAfter = 5_000
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

const open = () => {
  source = new EventSource(eventsUrl)
  source.addEventListener("ready", () => {
    clearTimeout(losing)
    losing = undefined
    // Changes made while the stream was down are not sent again: every screen reads afresh.
    if (everConnected) tell(everything)
    everConnected = true
    setState("open")
  })
  source.addEventListener("change", (event) => tell(kindsOf(event.data)))
  source.addEventListener("error", () => {
    // The server ends a stream now and then (every 15 minutes) and the browser is back within
    // seconds: only a stream still down `lostAfter` after it first failed is a lost connection
    // worth a banner (the browser's retries fail meanwhile; they do not restart the wait).
    losing ??= setTimeout(() => setState("lost"), lostAfter)
    if (source?.readyState === EventSource.CLOSED) {
      source = null
      retry = setTimeout(open, reconnectAfter)
    }
  })
}

/** Opens the stream while the dashboard is mounted (signed in); closes it when it is not. */
export const useLiveConnection = () => {
  useEffect(() => {
    open()
    return () => {
      clearTimeout(retry)
      clearTimeout(losing)
      losing = undefined
      source?.close()
      source = null
      everConnected = false
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
 * arriving while a reload is under way make one more reload when it ends, not one each.
 */
export const useLiveRefresh = (kinds: ReadonlyArray<LiveKind>, reload: () => unknown) => {
  const latest = useRef(reload)
  latest.current = reload
  useEffect(() => {
    let running = false
    let again = false
    const run = async () => {
      if (running) {
        again = true
        return
      }
      running = true
      try {
        do {
          again = false
          await latest.current()
        } while (again)
      } finally {
        running = false
      }
    }
    const listener: Listener = (touched) => {
      if (kinds.some((kind) => touched.has(kind))) void run()
    }
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [kinds.join(",")])
}
